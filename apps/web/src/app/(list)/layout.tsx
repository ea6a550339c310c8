import { pageReader } from "@/server/session";

/**
 * The runs list's sign-in check, above its loading boundary: there a private lab's redirect is a
 * plain 307, where inside it the page would already be streaming with 200.
 */
export default async function RunsListLayout({ children }: { children: React.ReactNode }) {
  await pageReader("/");
  return children;
}
