import { Anchor, Button, Card, type AnchorProps, type ButtonProps, type CardProps } from '@mantine/core';
import { createLink } from '@tanstack/react-router';
import type { AnchorHTMLAttributes, Ref } from 'react';

type A = AnchorHTMLAttributes<HTMLAnchorElement> & { ref?: Ref<HTMLAnchorElement> };

// Mantine's polymorphic `component={Link}` loses the router's typing of `to` and `params`; these keep it.
export const AnchorLink = createLink((props: Omit<AnchorProps, 'href'> & A) => <Anchor component="a" {...props} />);
export const ButtonLink = createLink((props: Omit<ButtonProps, 'href'> & A) => <Button component="a" {...props} />);
export const CardLink = createLink((props: Omit<CardProps, 'href'> & A) => <Card component="a" {...props} />);

/**
 * The way back from an institution's sub-page (its referrals, communications, tasks) to its CRM page on
 * a desktop. A phone has the frame's back link in the header instead.
 */
export function BackToInstitutionButton({ id }: { id: string }) {
  return (
    <ButtonLink to="/crms/$id" params={{ id }} variant="default" visibleFrom="sm">
      医療機関ページへ戻る
    </ButtonLink>
  );
}
