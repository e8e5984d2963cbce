/**
 * `npm run bench:scale`: what list pages cost when users made the data. The API runs as users
 * start it (`npm start`, in a process of its own) on DynamoDB Local, with the test-support proxy in
 * front of DynamoDB counting every call; the collection is made through the API by concurrent
 * HTTP clients (test/support/api-load.ts), and every page is measured by the calls its own request
 * caused, while the writers run and after they stop. Writes bench/results/<name>.{md,json,svg}.
 * `--help` lists the options.
 *
 * The only look behind the API's back is the number of pending count items
 * (test/support/pending-counts.ts), read straight from DynamoDB Local, uncounted.
 */
import { scaleOptions } from './scale/options';

const options = scaleOptions();
// Imported once the options are known to be good: nothing starts before.
const { runScale } = await import('./scale/run');
await runScale(options);
