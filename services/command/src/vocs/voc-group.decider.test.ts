import { describe, it } from 'vitest';
import { invalid } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { vocGroupsDecider } from './voc-group.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ids = (...list: string[]) => {
  let n = 0;
  return () => list[n++]!;
};
const stored = [
  {
    type: 'VocGroupsReplaced',
    data: {
      voc_groups: [
        { id: id(1), name: '紹介・返書' },
        { id: id(2), name: '接遇' },
      ],
    },
  },
];

describe('voc groups decider', () => {
  it('keeps known ids, gives new entries new ids, renames in place', () => {
    given(vocGroupsDecider, stored)
      .when({
        groups: [{ id: id(2), name: '接遇・窓口' }, { id: id(1), name: '紹介・返書' }, { name: '設備' }],
        inUse: new Map(),
        newId: ids(id(3)),
      })
      .then([
        {
          type: 'VocGroupsReplaced',
          data: {
            voc_groups: [
              { id: id(2), name: '接遇・窓口' },
              { id: id(1), name: '紹介・返書' },
              { id: id(3), name: '設備' },
            ],
          },
        },
      ]);
  });

  it('refuses to drop a group in use, naming it; an unused one may go', () => {
    given(vocGroupsDecider, stored)
      .when({ groups: [{ id: id(2), name: '接遇' }], inUse: new Map([[id(1), 3]]), newId: ids() })
      .thenRejected(
        invalid({
          field: 'voc_groups',
          message: '「紹介・返書」は3件のVOCで使われているため削除できません。先にVOCのグループを変更してください',
        }),
      );
    given(vocGroupsDecider, stored)
      .when({ groups: [{ id: id(1), name: '紹介・返書' }], inUse: new Map([[id(1), 3]]), newId: ids() })
      .then([{ type: 'VocGroupsReplaced', data: { voc_groups: [{ id: id(1), name: '紹介・返書' }] } }]);
  });

  it('names every group in use that the list leaves out, in one message', () => {
    given(vocGroupsDecider, stored)
      .when({
        groups: [],
        inUse: new Map([
          [id(1), 3],
          [id(2), 1],
        ]),
        newId: ids(),
      })
      .thenRejected(
        invalid({
          field: 'voc_groups',
          message:
            '「紹介・返書」（3件）、「接遇」（1件）はVOCで使われているため削除できません。先にVOCのグループを変更してください',
        }),
      );
  });

  it('refuses duplicate names (full-width or not) and ids; the same list decides nothing', () => {
    given(vocGroupsDecider, stored)
      .when({
        groups: [
          { id: id(1), name: 'ＡＢＣ' },
          { id: id(1), name: 'ABC' },
        ],
        inUse: new Map(),
        newId: ids(id(3)),
      })
      .thenRejected(
        invalid(
          { field: 'voc_groups.1.name', message: '「ABC」が重複しています' },
          { field: 'voc_groups.1.id', message: '「ABC」のIDが他の行と重複しています' },
        ),
      );
    given(vocGroupsDecider, stored)
      .when({
        groups: [
          { id: id(1), name: '紹介・返書' },
          { id: id(2), name: '接遇' },
        ],
        inUse: new Map(),
        newId: ids(),
      })
      .then([]);
  });
});
