import Link from "next/link";
import { buttonPrimary, panel } from "./ui";

export function EmptyState({
  title,
  body,
  href,
  action,
}: {
  title: string;
  body: React.ReactNode;
  href: string;
  action: string;
}) {
  return (
    <div
      className={`${panel} flex flex-col items-center gap-3 px-6 py-16 text-center`}
      data-testid="empty-state"
    >
      <h2 className="text-lg font-semibold">{title}</h2>
      <p className="max-w-md text-sm text-zinc-600 dark:text-zinc-400">{body}</p>
      <Link href={href} className={`${buttonPrimary} mt-2`}>
        {action}
      </Link>
    </div>
  );
}
