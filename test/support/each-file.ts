import { holdLoadLock } from './load-lock';

// Every test file holds the run's load lock while it runs (load tests hold it alone).
holdLoadLock();
