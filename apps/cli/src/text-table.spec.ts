import { describe, expect, it } from 'vitest';
import { textTable } from './text-table.js';

describe('textTable', () => {
  it('pads every column to its widest cell, numbers to the right, with a rule under the header and between sections', () => {
    const text = textTable(
      ['id', 'hours', 'note'],
      [
        [
          ['a', 1.5, 'short'],
          ['bbbb', 12, null],
        ],
        [['total', 13.5, 'x']],
      ],
    );
    expect(text).toBe(
      [
        'id     hours  note',
        '-----  -----  -----',
        'a        1.5  short',
        'bbbb      12',
        '-----  -----  -----',
        'total   13.5  x',
        '',
      ].join('\n'),
    );
  });

  it('keeps a cell with a line break or a tab on its row, and an object as JSON', () => {
    const text = textTable(['summary', 'data'], [[['two\nlines\tand a tab', { a: 1 }]]]);
    expect(text.split('\n')).toEqual(['summary              data', '-------------------  -------', 'two lines and a tab  {"a":1}', '']);
  });
});
