import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import type { FieldError } from "@/lib/form-errors";
import { focusFirstInvalid } from "../form-field";

/** Posts the spec; a refusal's errors and message come back for the form to show. */
async function postSpec(spec: unknown) {
  const response = await fetch("/api/v1/matrices", {
    method: "POST",
    headers: { "content-type": "application/json", "x-perflab-client": "web" },
    body: JSON.stringify(spec),
  });
  const body = await response.json().catch(() => null);
  return { status: response.status, body };
}

/**
 * Submitting the run form: checks it as the API would, posts it, goes to the run or shows why not
 * (field errors, the server's message, a sign-in hint on 401), focusing the first field in error.
 */
export function useSubmitRun(validate: () => { spec: unknown; errors: FieldError[] }) {
  const router = useRouter();
  const [errors, setErrors] = useState<FieldError[]>([]);
  const [attempted, setAttempted] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  /** The API answered 401: this lab needs a token, or the sign-in's token stopped working. */
  const [needsToken, setNeedsToken] = useState(false);
  // The server's answer shows above the form, while the submit button is at its foot: bring it into view.
  const alertRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (failure) alertRef.current?.scrollIntoView({ block: "nearest" });
  }, [failure]);
  // A refused submit takes focus to the first field in error, once its errors have rendered.
  const formRef = useRef<HTMLFormElement>(null);
  const [refusals, setRefusals] = useState(0);
  useEffect(() => {
    if (refusals > 0) focusFirstInvalid(formRef.current);
  }, [refusals]);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    setAttempted(true);
    setFailure(null);
    setNeedsToken(false);
    const { spec, errors: clientErrors } = validate();
    setErrors(clientErrors);
    if (!spec) {
      setRefusals((n) => n + 1);
      return;
    }
    setSubmitting(true);
    try {
      const { status, body } = await postSpec(spec);
      if (status === 201 && body?.runId) {
        router.push(`/runs/${body.runId}`);
        return;
      }
      // A 401's errors are about the credential, not a field of the form.
      setNeedsToken(status === 401);
      setErrors(status !== 401 && Array.isArray(body?.errors) ? body.errors : []);
      setFailure(body?.detail ?? body?.title ?? `The server answered ${status}.`);
      setRefusals((n) => n + 1);
    } catch {
      setFailure("The server could not be reached.");
    }
    setSubmitting(false);
  };
  return { errors, setErrors, attempted, submitting, failure, needsToken, alertRef, formRef, submit };
}
