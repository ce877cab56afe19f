import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOutbox } from '../src/mail/outbox.ts';
import { api, useTestApp } from './helpers/app.ts';
import {
  activateForm,
  addMember,
  assignSites,
  createForm,
  createSite,
  createTenant,
  type Member,
  type Tenant,
} from './helpers/factories.ts';

/**
 * Issue 47: the reminder and the rejection e-mails are written in the recipient's language (the
 * locale on their account, PATCH /me), English without one; read from the .eml outbox as sent.
 */
const dataDir = `/tmp/sdcs-mail-languages-${process.pid}-${randomBytes(4).toString('hex')}`;
const t = useTestApp({ dataDir, publicUrl: 'https://sdcs.example.org' });
/** The e-mails to `email` in the outbox, once the queued ones were sent (decision 232). */
const mailsTo = async (email: string) => {
  await t.app.jobs.drain();
  return (await readOutbox(`${dataDir}/outbox`)).filter((m) => m.to === email);
};

let tenant: Tenant;
let polish: Member;
let english: Member;
let plant: string;
let form: { id: string };

beforeAll(async () => {
  tenant = await createTenant(t);
  polish = await addMember(t, tenant.organizationId, 'COLLECTOR');
  english = await addMember(t, tenant.organizationId, 'COLLECTOR');
  plant = await createSite(t, tenant.organizationId, { name: 'Werk Köln' });
  for (const who of [tenant.collector, polish, english]) {
    await assignSites(t, tenant.organizationId, who.userId, [plant]);
  }
  await assignSites(t, tenant.organizationId, tenant.manager.userId, [plant]);
  form = await createForm(t, tenant, {
    name: 'Energie',
    periodType: 'MONTHLY',
    elements: [
      { key: 'electricity', label: 'Strom', type: 'NUMBER' },
      { key: 'metered', label: 'Gezählt', type: 'BOOLEAN' },
    ],
  });
  await activateForm(t, tenant, form.id, [plant], [2025]);
  expect(
    (await api(t, 'PATCH', '/me', { token: tenant.collector.token, body: { locale: 'de' } })).status,
  ).toBe(200);
  expect((await api(t, 'PATCH', '/me', { token: polish.token, body: { locale: 'pl' } })).status).toBe(200);
});

describe('e-mails in the recipient’s language', () => {
  it('the reminder: German, Polish and English to three collectors of the same site', async () => {
    const res = await api(t, 'POST', '/completeness/reminders', {
      token: tenant.manager.token,
      body: { formId: form.id, year: 2025, periodUnit: 3 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.reminded).toBe(3);

    const [de] = await mailsTo(tenant.collector.email);
    expect(de!.subject).toBe('Erinnerung: Energie, März 2025');
    expect(de!.text).toContain('„Energie“ für März 2025 noch nicht vollständig ist.');
    expect(de!.text).toContain('Es fehlt noch:\n- Werk Köln: Strom, Gezählt');
    expect(de!.text).toContain('Hier erfassen: https://sdcs.example.org/app/enter/');
    expect(de!.html).toContain('>Daten erfassen</a>');
    expect(de!.text).not.toMatch(/Reminder|Still missing|Please enter/);

    const [pl] = await mailsTo(polish.email);
    expect(pl!.subject).toBe('Przypomnienie: Energie, marzec 2025');
    expect(pl!.text).toContain('Nadal brakuje:');
    expect(pl!.text).toContain('Wprowadź je tutaj: https://sdcs.example.org/app/enter/');

    const [en] = await mailsTo(english.email);
    expect(en!.subject).toBe('Reminder: Energie, March 2025');
    expect(en!.text).toContain('Still missing:');
  });

  it('the rejection: in the recorder’s language, numbers and Yes/No in its words, plurals by its rules', async () => {
    const send = async (token: string, periodUnit: number, value: number) => {
      const res = await api(t, 'POST', '/form-submissions', {
        token,
        body: {
          formId: form.id,
          siteId: plant,
          year: 2025,
          values: [
            { elementKey: 'electricity', periodUnit, value },
            { elementKey: 'metered', periodUnit, value: true },
          ],
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.values.map((v: { formElementSubmissionId: string }) => v.formElementSubmissionId);
    };
    const german = [
      ...(await send(tenant.collector.token, 1, 12500.5)),
      ...(await send(tenant.collector.token, 2, 3)),
    ];
    const polishIds = await send(polish.token, 4, 1234.5);
    const review = await api(t, 'POST', '/form-submissions/values/review', {
      token: tenant.manager.token,
      body: {
        ids: [...german, ...polishIds],
        status: 'REJECTED',
        comment: 'Bitte mit der Rechnung abgleichen',
      },
    });
    expect(review.status, JSON.stringify(review.body)).toBe(200);
    expect(review.body.mailed).toBe(2);

    const [de] = await mailsTo(tenant.collector.email).then((m) =>
      m.filter((x) => x.subject.startsWith('Bitte')),
    );
    expect(de!.subject).toBe('Bitte korrigieren Sie 4 Werte in 2 Zeiträumen');
    expect(de!.text).toContain(
      'hat 4 von Ihnen erfasste Werte abgelehnt und bittet Sie, sie zu korrigieren.',
    );
    expect(de!.text).toContain('Kommentar: Bitte mit der Rechnung abgleichen');
    expect(de!.text).toContain(
      'Energie, Werk Köln, Januar 2025:\n- Strom (erfasst: 12.500,5)\n- Gezählt (erfasst: Ja)',
    );
    expect(de!.text).toContain('Hier korrigieren: https://sdcs.example.org/app/enter/');
    expect(de!.html).toContain('>Werte korrigieren</a>');
    expect(de!.text).not.toMatch(/Please|entered|Comment/);

    const [pl] = (await mailsTo(polish.email)).filter((m) => m.subject.startsWith('Prośba'));
    expect(pl!.subject).toBe('Prośba o poprawkę: Energie, Werk Köln, kwiecień 2025');
    expect(pl!.text).toContain('odrzuciła 2 wprowadzone przez Ciebie wartości i prosi o ich poprawienie.');
    expect(pl!.text).toContain('- Strom (wprowadzono: 1234,5)\n- Gezählt (wprowadzono: Tak)');
  });
});
