/**
 * Registers: get (ReadRegister on the owning company), deactivate (ManageRegister): state Discharged at once,
 * or at a later time (`dischargeAfter`), which the scheduler carries out.
 */
import { Issues, PortalError, notFound } from '../envelope.js';
import type { PortalContext } from '../context.js';
import { type Caller, requirePermission } from '../permissions.js';
import type { Register } from '../store/types.js';
import { dateTimeField } from '../validation/date-time.js';

async function registerWithPath(ctx: PortalContext, registerNumber: string): Promise<{ register: Register; path: string }> {
  const register = await ctx.store.getRegister(registerNumber);
  if (!register) throw notFound(`Register ${registerNumber}`);
  const company = await ctx.store.getEntity(register.companyId);
  if (!company) throw notFound(`Register ${registerNumber}`);
  return { register, path: company.path };
}

export async function getRegister(ctx: PortalContext, caller: Caller, registerNumber: string): Promise<Register> {
  const { register, path } = await registerWithPath(ctx, registerNumber);
  requirePermission(caller, 'ReadRegister', path, `register ${registerNumber}`);
  return register;
}

export async function dischargeRegister(ctx: PortalContext, caller: Caller, registerNumber: string, dischargeAfter: string | undefined): Promise<Register> {
  const { register, path } = await registerWithPath(ctx, registerNumber);
  requirePermission(caller, 'ManageRegister', path, `register ${registerNumber}`);
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
