export const THEME_STORAGE_KEY = "perflab-theme";
export type Theme = "light" | "dark";

/**
 * Runs inline in <head> before the first paint: the stored choice, else the system preference.
 * Kept as a string so no flash of the wrong theme happens while React loads.
 */
export const themeInitScript = `(function(){try{var s=localStorage.getItem(${JSON.stringify(
  THEME_STORAGE_KEY,
)});var d=s?s==="dark":window.matchMedia("(prefers-color-scheme: dark)").matches;document.documentElement.classList.toggle("dark",d);}catch(e){}})();`;
