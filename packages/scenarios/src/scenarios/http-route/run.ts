import { z } from "zod";
import { checkLoadModel, loadEnv, loadRunShape } from "../../load.ts";
import { ZHttpRouteParams } from "./params.ts";

/**
 * Everything one run of k6/http-route.js takes: the load (VUs or a rate, measured duration, warm-up)
 * and the route. The worker builds the script's environment from it with `httpRouteEnv`, and a user
 * running the script by hand sets the same variables.
 */
export const ZHttpRouteRun = z
  .strictObject({ ...loadRunShape, ...ZHttpRouteParams.shape })
  .superRefine(checkLoadModel);
export type THttpRouteRun = z.input<typeof ZHttpRouteRun>;

/** The script's environment variables (k6/http-route.js reads exactly these, see its header). */
export function httpRouteEnv(input: THttpRouteRun): Record<string, string> {
  const run = ZHttpRouteRun.parse(input);
  return { ...loadEnv(run), ROUTE: run.route };
}
