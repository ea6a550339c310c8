"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import type { FieldError } from "@/lib/form-errors";
import { FormField, inputClass } from "./form-field";
import { buttonPrimary, buttonSecondary, link, panel } from "./ui";

/** Signs the dashboard in with an API token (kept in an HttpOnly cookie), then goes to `next`. */
export function SignInForm({ next }: { next: string }) {
  const router = useRouter();
  const [token, setToken] = useState("");
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setSubmitting(true);
    setFailure(null);
    try {
      const response = await fetch("/api/v1/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token }),
      });
      if (response.ok) {
        router.push(next);
        // The header (in the layout) shows who is signed in: render it again.
        router.refresh();
        return;
      }
      const body = await response.json().catch(() => null);
      const fieldErrors: FieldError[] = Array.isArray(body?.errors) ? body.errors : [];
      const own = fieldErrors.filter((e) => e.field === "token");
      setErrors(own);
      setFailure(own.length > 0 ? null : (body?.detail ?? `The server answered ${response.status}.`));
    } catch {
      setFailure("The server could not be reached.");
    }
    setSubmitting(false);
  };

  return (
    <form onSubmit={submit} noValidate className={`${panel} space-y-5 p-6`} data-testid="sign-in-form">
      {failure && (
        <p
          role="alert"
          className="rounded-md border border-rose-300 bg-rose-50 px-4 py-3 text-sm text-rose-800 dark:border-rose-800 dark:bg-rose-950 dark:text-rose-200"
          data-testid="form-error"
        >
          {failure}
        </p>
      )}
      <FormField
        id="token"
        label="API token"
        errors={errors}
        hint="Starts with plab_. It stays in this browser until you sign out."
      >
        <input
          id="token"
          type="password"
          autoComplete="off"
          spellCheck={false}
          className={`${inputClass} font-mono`}
          value={token}
          placeholder="plab_…"
          onChange={(e) => {
            setToken(e.target.value);
            setErrors([]);
          }}
          aria-invalid={errors.length > 0}
        />
      </FormField>
      <div className="flex justify-end border-t border-zinc-200 pt-5 dark:border-zinc-800">
        <button type="submit" className={buttonPrimary} disabled={submitting} data-testid="sign-in-submit">
          {submitting ? "Signing in…" : "Sign in"}
        </button>
      </div>
    </form>
  );
}

/**
 * The sign-in form's address, coming back to this page (its query too: a comparison's runs)
 * afterwards; the sign-in page keeps only a path of this site (lib/safe-next).
 */
export function useSignInHref(): string {
  const pathname = usePathname();
  const query = useSearchParams().toString();
  if (pathname === "/sign-in") return "/sign-in";
  return `/sign-in?next=${encodeURIComponent(query ? `${pathname}?${query}` : pathname)}`;
}

/** A link to the sign-in form that comes back to this page afterwards. */
export function SignInLink({
  className = link,
  children = "Sign in",
}: {
  className?: string;
  children?: string;
}) {
  const href = useSignInHref();
  return (
    <Link href={href} className={className} data-testid="sign-in-link">
      {children}
    </Link>
  );
}

/** Forgets this browser's sign-in (the token itself stays valid). */
export function SignOutButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const signOut = async () => {
    setBusy(true);
    await fetch("/api/v1/session", { method: "DELETE" }).catch(() => undefined);
    router.refresh();
    setBusy(false);
  };
  return (
    <button
      type="button"
      className={`${buttonSecondary} py-1`}
      onClick={signOut}
      disabled={busy}
      data-testid="sign-out"
    >
      Sign out
    </button>
  );
}

/** After a refusal's message: a space and "Sign in" when the refusal was for want of a token (401). */
export function SignInHint({ show }: { show: boolean }) {
  if (!show) return null;
  return (
    <>
      {" "}
      <SignInLink className="font-medium underline" />
    </>
  );
}
