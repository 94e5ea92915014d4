import { sql, type Transaction } from 'kysely';
import type { OwnDepartmentsReplaced } from '@renkei/domain';
import { insertRows, type WriteRow } from '../../shared/table.ts';
import { miAccountsTable, ownDepartmentsTable } from '../medical-institution-crm.tables.ts';
import { key, type Applied, type CrmEventOf, type CrmTables } from './crm-event.ts';

/** Tenant settings the CRM pages show: the own hospital's departments and account names. */
export class CrmSettings {
  private readonly ownDepartments = new Map<string, OwnDepartmentsReplaced['own_departments']>();
  private readonly accounts = new Map<string, WriteRow<typeof miAccountsTable>>();

  applyOwnDepartments(event: CrmEventOf<'OwnDepartmentsReplaced'>, a: Applied): void {
    this.ownDepartments.set(a.tenantId, event.data.own_departments);
  }

  applyAccount(event: CrmEventOf<'AccountRegistered' | 'AccountUpdated'>, a: Applied): void {
    this.accounts.set(key(a.tenantId, event.data.account_id), {
      tenant_id: a.tenantId,
      account_id: event.data.account_id,
      name: event.data.username,
    });
  }

  async write(trx: Transaction<unknown>, t: CrmTables): Promise<void> {
    if (this.ownDepartments.size > 0) {
      const departments = [...this.ownDepartments.entries()];
      await sql`DELETE FROM ${sql.table(t.own_departments)} WHERE tenant_id = ANY(${sql.val(departments.map(([id]) => id))}::uuid[])`.execute(
        trx,
      );
      await insertRows(
        trx,
        t.own_departments,
        ownDepartmentsTable,
        departments.flatMap(([tenant_id, list]) => list.map((d, i) => ({ tenant_id, ...d, sort_order: i }))),
      );
    }
    await insertRows(trx, t.mi_accounts, miAccountsTable, [...this.accounts.values()], {
      onConflict: sql`ON CONFLICT (tenant_id, account_id) DO UPDATE SET name = excluded.name`,
    });
  }
}
