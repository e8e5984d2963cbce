import { describe, expect, it } from 'vitest';
import { minimumCompressionBytes, varyOf } from '../../../shared/http/compression';

/** `Vary` names `Accept-Encoding` exactly when API Gateway would compress the body: from 1,024 UTF-8 bytes on. */
describe('Vary of a body', () => {
  it('is Accept below the compression size and Accept, Accept-Encoding from it on', () => {
    expect(minimumCompressionBytes).toBe(1024);
    expect(varyOf('x'.repeat(1023))).toBe('Accept');
    expect(varyOf('x'.repeat(1024))).toBe('Accept, Accept-Encoding');
    expect(varyOf('')).toBe('Accept');
  });

  it('counts UTF-8 bytes, not characters', () => {
    // 512 characters of two bytes each: 1,024 bytes; 511 of them and one ASCII: 1,023.
    expect(varyOf('é'.repeat(512))).toBe('Accept, Accept-Encoding');
    expect(varyOf(`${'é'.repeat(511)}x`)).toBe('Accept');
    expect(varyOf('😀'.repeat(256))).toBe('Accept, Accept-Encoding');
  });
});
