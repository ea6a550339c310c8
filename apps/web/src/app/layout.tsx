import type { Metadata } from "next";
import { headers } from "next/headers";
import { SiteHeader } from "@/components/site-header";
import { themeInitScript } from "@/lib/theme";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "perflab", template: "%s · perflab" },
  description: "Benchmark MCP servers across languages and runtimes.",
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The request's script nonce (middleware.ts): reading it renders every page per request, as a
  // nonce must be new each time.
  const nonce = (await headers()).get("x-nonce") ?? undefined;
  return (
    // The theme script changes the class before hydration; React must not warn about it.
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a constant script, no user input */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: themeInitScript }} />
      </head>
      <body className="min-h-screen font-sans">
        <SiteHeader />
        <main className="mx-auto max-w-7xl px-4 py-8 sm:px-6">{children}</main>
      </body>
    </html>
  );
}
