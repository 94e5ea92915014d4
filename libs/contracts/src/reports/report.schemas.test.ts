import { describe, expect, it } from 'vitest';
import { ReportResultBody } from './report.schemas.ts';
import { endpoints } from '../registry.ts';

const definition = {
  name: '月次紹介',
  display_items: [{ item_key: 'medical_institution_name' }],
  aggregation_settings: { period: { from: '2024-04-01', to: '2025-03-31' } },
};

describe('report contracts', () => {
  it('runs either a saved definition or an inline one, not both or neither', () => {
    expect(ReportResultBody.safeParse({ definition_id: '7b0c8f4e-4a43-4a39-9d4f-2d4a6f0f2e11' }).success).toBe(true);
    expect(ReportResultBody.safeParse({ definition }).success).toBe(true);
    expect(ReportResultBody.safeParse({}).success).toBe(false);
    expect(
      ReportResultBody.safeParse({ definition, definition_id: '7b0c8f4e-4a43-4a39-9d4f-2d4a6f0f2e11' }).success,
    ).toBe(false);
  });

  it('rejects a period that ends before it starts', () => {
    const result = ReportResultBody.safeParse({
      definition: { ...definition, aggregation_settings: { period: { from: '2025-04-01', to: '2024-03-31' } } },
    });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['definition', 'aggregation_settings', 'period', 'to']);
  });

  it('gives each report kind its own feature and typed entry names', () => {
    expect(endpoints.areaReportsResults.path).toBe('/area_reports/results');
    expect(endpoints.areaReportsResults.feature).toBe('area_report');
    expect(endpoints.medicalInstitutionReportsAggregationResults.feature).toBe('medical_institution_report');
    expect(endpoints.ownDepartmentReportsListDefinitions.id).toBe('ownDepartmentReports.listDefinitions');
  });
});
