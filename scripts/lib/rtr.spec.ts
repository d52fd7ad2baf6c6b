import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRtr } from './rtr.js';

const HEADER =
  'fit,user_id,item_id,size,weight_lbs,height_in,age,bust_size_num,bust_size_letter,body_type,category,rented_for,rating,review_date';

describe('loadRtr', () => {
  it('reads the rentals in date order, keeping the file order within a day, and leaves out unreadable rows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rtr-'));
    try {
      writeFileSync(
        join(dir, 'train.csv'),
        [
          '# a comment line',
          HEADER,
          'small,1,10,8,,65,30,34,dd,,dress,party,10,2016-05-02',
          'fit,2,11,12,140,66,41,36,c,pear,gown,wedding,8,2016-05-01',
          'large,3,12,4,120,62,,32,b,petite,,work,10,2016-05-02',
          'huge,4,13,4,120,62,25,32,b,petite,dress,work,10,2016-05-01',
          'fit,5,14,,120,62,25,32,b,petite,dress,work,10,2016-05-01',
        ].join('\n'),
      );
      const data = loadRtr(dir);
      expect(data.excluded).toBe(2);
      expect(data.file.rows).toBe(5);
      expect(data.rentals.map((r) => r.itemId)).toEqual(['11', '10', '12']);
      const [gown, dress, unknown] = data.rentals;
      expect(gown).toEqual({
        verdict: 'fit',
        userId: '2',
        itemId: '11',
        category: 'gown',
        size: 12,
        weightLbs: 140,
        heightIn: 66,
        age: 41,
        bustBand: 36,
        cup: 3,
        bodyType: 'pear',
        at: Date.UTC(2016, 4, 1),
      });
      expect(dress.weightLbs).toBeNull();
      expect(dress.cup).toBeNull(); // "dd" is not a cup letter of the file
      expect(dress.bodyType).toBeNull();
      expect(unknown.category).toBe('unknown');
      expect(unknown.age).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
