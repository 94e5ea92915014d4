import { MantineProvider } from '@mantine/core';
import { render } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { InstitutionOption } from './InstitutionOption.tsx';

const renderOption = (checked: boolean) =>
  render(
    <MantineProvider>
      <InstitutionOption name="藤田医院" address="静岡県静岡市葵区追手町1" checked={checked} />
    </MantineProvider>,
  ).container;

describe('InstitutionOption', () => {
  it('reads the name, then the address; a picked one keeps its check mark', () => {
    const picked = renderOption(true);
    expect(picked).toHaveTextContent('藤田医院静岡県静岡市葵区追手町1');
    expect(picked.querySelector('svg')).not.toBeNull();
    expect(renderOption(false).querySelector('svg')).toBeNull();
  });
});
