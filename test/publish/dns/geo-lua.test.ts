import { expect } from 'chai';
import { geoRecordLua, poolLua } from '../../../src/publish/dns/geo-lua.js';

describe('geo LUA records', () => {
  it('checks region, then country, then continent, then answers the default', () => {
    const lua = geoRecordLua('A', [
      { scope: 'continent', code: 'EU', target: '192.0.2.3' },
      { scope: 'default', code: null, target: '192.0.2.9' },
      { scope: 'country', code: 'DE', target: '192.0.2.2' },
      { scope: 'region', code: 'US-CA', target: '192.0.2.1' },
    ]);
    expect(lua).to.equal(`A ";if (country('US') and region('CA')) then return {'192.0.2.1'} end if country('DE') then return {'192.0.2.2'} end if continent('EU') then return {'192.0.2.3'} end return {'192.0.2.9'}"`);
  });

  it('returns a name for CNAME records, and only the default when there is no other route', () => {
    expect(geoRecordLua('CNAME', [{ scope: 'default', code: null, target: 'origin.example.net' }, { scope: 'country', code: 'JP', target: 'jp.example.net' }])).to.equal(`CNAME ";if country('JP') then return 'jp.example.net' end return 'origin.example.net'"`);
    expect(geoRecordLua('AAAA', [{ scope: 'default', code: null, target: '2001:db8::1' }])).to.equal(`AAAA ";return {'2001:db8::1'}"`);
  });

  it('never writes a value that could break out of the Lua string', () => {
    expect(geoRecordLua('A', [{ scope: 'default', code: null, target: "1.2.3.4'} os.exit() {'" }])).to.equal(undefined);
    expect(geoRecordLua('A', [{ scope: 'country', code: "DE') or ('", target: '192.0.2.2' }, { scope: 'default', code: null, target: '192.0.2.9' }])).to.equal(`A ";return {'192.0.2.9'}"`);
    expect(geoRecordLua('A', [{ scope: 'country', code: 'DE', target: '192.0.2.2' }])).to.equal(undefined);
  });

  it('answers the pool by country, then continent, then every edge', () => {
    expect(poolLua('A', { US: ['198.51.100.3'], DE: ['198.51.100.1'] }, ['198.51.100.3', '198.51.100.1', '198.51.100.4'])).to.equal(
      `A ";if country('DE') then return {'198.51.100.1'} end if country('US') then return {'198.51.100.3'} end if continent('EU') then return {'198.51.100.1'} end if continent('NA') then return {'198.51.100.3'} end return {'198.51.100.1','198.51.100.3','198.51.100.4'}"`,
    );
    expect(poolLua('AAAA', {}, [])).to.equal(undefined);
  });
});
