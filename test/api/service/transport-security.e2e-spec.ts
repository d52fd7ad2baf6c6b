import { afterAll, describe, expect, it } from '@jest/globals';
import { startApp, type TestApp } from '../../support/app.js';

/** Strict-Transport-Security tells browsers to use only HTTPS: right only when the service is reached over HTTPS. */
describe('Strict-Transport-Security', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.close()));
  });

  async function headersAt(publicUrl: string): Promise<Array<string | undefined>> {
    const t = await startApp({ publicUrl });
    apps.push(t);
    const answers = await Promise.all(['/healthz', '/v1/merchant', '/console/login'].map((path) => t.http().get(path)));
    return answers.map((answer) => answer.headers['strict-transport-security'] as string | undefined);
  }

  it('is sent on every answer when the public address is https', async () => {
    for (const header of await headersAt('HTTPS://fit.example')) expect(header).toBe('max-age=31536000; includeSubDomains');
  });

  it('is never sent when the public address is plain http', async () => {
    expect(await headersAt('http://127.0.0.1:3000')).toEqual([undefined, undefined, undefined]);
  });
});
