/**
 * Registers: get (ReadRegister on the owning company), deactivate (ManageRegister): state Discharged at once,
 * or at a later time (`dischargeAfter`), which the scheduler carries out.
 */
import { Issues, PortalError, notFound } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, requirePermission, sees } from '../permissions.js';
import type { Register } from '../store/types.js';
import { dateTimeField } from '../validation/date-time.js';

/**
 * The register with `permission` on its company. A register whose company no grant of the caller covers is
 * answered NOT_FOUND like a register number never used; FORBIDDEN only when the caller sees the company (it
 * lists the register in the company's notifications) but lacks the register permission.
 */
async function registerWith(ctx: PortalContext, caller: Caller, registerNumber: string, permission: 'ReadRegister' | 'ManageRegister'): Promise<Register> {
  const register = await ctx.store.getRegister(registerNumber);
  const company = register ? await ctx.store.getEntity(register.companyId) : undefined;
  if (!register || !company || !sees(caller, company.path)) throw notFound(`Register ${registerNumber}`);
  requirePermission(caller, permission, company.path, `register ${registerNumber}`);
  return register;
}

export function getRegister(ctx: PortalContext, caller: Caller, registerNumber: string): Promise<Register> {
  return registerWith(ctx, caller, registerNumber, 'ReadRegister');
}

export async function dischargeRegister(ctx: PortalContext, caller: Caller, registerNumber: string, dischargeAfter: string | undefined): Promise<Register> {
  const register = await registerWith(ctx, caller, registerNumber, 'ManageRegister');
  if (register.state === 'Discharged') throw new PortalError('INVALID_STATE', { detail: `register ${registerNumber} is already discharged` });
  const now = ctx.clock.now();
  if (dischargeAfter !== undefined) {
    const issues = new Issues();
    const t = dateTimeField(issues, 'dischargeAfter', dischargeAfter);
    if (t !== undefined && !(t > now.getTime())) issues.add('dischargeAfter', 'future');
    if (t === undefined && !issues.has('dischargeAfter')) issues.add('dischargeAfter', 'dateTime');
    issues.throwIfAny();
    const at = new Date(t ?? 0);
    const r = await ctx.store.setRegisterState(registerNumber, register.state, at.toISOString(), now);
    if (!r) throw notFound(`Register ${registerNumber}`);
    return r;
  }
  const r = await ctx.store.setRegisterState(registerNumber, 'Discharged', null, now);
  if (!r) throw notFound(`Register ${registerNumber}`);
  return r;
}
