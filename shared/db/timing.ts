// The timing rules moved to shared/timing.ts, below every layer; kept for the modules that still import them from here.
export * from '../timing';
