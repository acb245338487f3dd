/// <reference lib="webworker" />
// The highlight worker (HL-1): a thin Comlink shell; the work is in lib/highlight/.
import { expose } from 'comlink';
import { createHighlightService } from '../lib/highlight/highlightService';

expose(createHighlightService());
