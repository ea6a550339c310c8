"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const base =
  "shrink-0 whitespace-nowrap rounded-md px-2.5 py-1.5 text-sm font-medium transition-colors sm:px-3";
const idle =
  "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-400 dark:hover:bg-zinc-900 dark:hover:text-zinc-100";
const current = "bg-zinc-200 text-zinc-900 dark:bg-zinc-800 dark:text-zinc-50";

export function MainNav() {
  const pathname = usePathname();
  const onNew = pathname === "/runs/new";
  // A run's own page belongs to "Runs"; only the form is "New run".
  const links = [
    {
      href: "/",
      label: "Runs",
      active: !onNew && (pathname === "/" || pathname.startsWith("/runs/") || pathname === "/compare"),
    },
    { href: "/runs/new", label: "New run", active: onNew },
    { href: "/studies", label: "Studies", active: pathname === "/studies" },
    { href: "/servers", label: "Servers", active: pathname === "/servers" },
    { href: "/reports", label: "Reports", active: pathname === "/reports" || pathname.startsWith("/r/") },
    { href: "/settings/tokens", label: "Tokens", active: pathname.startsWith("/settings/") },
  ];
  return (
    // Below md: a row of its own under the logo, scrolling sideways should the links not fit.
    <nav
      className="order-last -mx-2.5 flex w-[calc(100%+1.25rem)] items-center gap-1 overflow-x-auto md:order-none md:mx-0 md:w-auto"
      aria-label="Main"
    >
      {links.map((link) => (
        <Link
          key={link.href}
          href={link.href}
          aria-current={link.active ? "page" : undefined}
          className={`${base} ${link.active ? current : idle}`}
        >
          {link.label}
        </Link>
      ))}
    </nav>
  );
}
