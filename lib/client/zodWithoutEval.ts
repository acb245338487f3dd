import { z } from 'zod';

// NOTE: the app's entry imports this before anything that builds a schema. zod 4 probes
// `Function("")` when it builds its first object schema, to decide whether to compile fast
// parsers. The app's CSP has no 'unsafe-eval' (server/http/appStatic.ts), so the probe throws and
// is caught, yet Chromium still fires a securitypolicyviolation and logs an error on every load.
// jitless skips the probe; the app parses few, small messages, so the compiled parsers buy nothing.
z.config({ jitless: true });
