/** Types of tool-defaults.js, the defaults shared by the k6 script and @perflab/scenarios. */
export declare const benchmarkDocument: Record<string, unknown>;
export declare const toolDefaults: Readonly<Record<string, Record<string, unknown>>>;
