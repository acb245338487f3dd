import { config } from 'zod/mini';

// NOTE: imported first by the preview host page, whose CSP has no 'unsafe-eval': without
// jitless, zod probes `Function("")` and Chromium reports a CSP violation on every preview.
// Same reason as lib/client/zodWithoutEval.ts, for the mini build the host page uses.
config({ jitless: true });
