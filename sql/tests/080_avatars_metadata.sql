-- Avatars are stored without metadata: a phone's JPEG loses its EXIF (GPS), XMP, ICC and
-- comment segments but keeps JFIF, Adobe and everything a decoder needs (tables, frame, scans);
-- a PNG loses its text, eXIf and tIME chunks and anything after IEND (app.image_without_metadata).
begin;
select plan(12);
select test.new_user('ann');

-- A JPEG segment (marker, then its length including itself) and a PNG chunk (CRCs are not read here).
create function pg_temp.segment(marker text, data bytea) returns bytea language sql as $$
    select decode('ff' || marker, 'hex') || int2send((length(data) + 2)::smallint) || data $$;
create function pg_temp.chunk(type text, data bytea) returns bytea language sql as $$
    select int4send(length(data)) || convert_to(type, 'UTF8') || data || '\x00000000'::bytea $$;

create temp table jpeg as
select '\xffd8'::bytea as soi,
       pg_temp.segment('e0', '\x4a46494600010100000100010000'::bytea) as jfif,
       pg_temp.segment('e1', convert_to('Exif', 'UTF8') || '\x0000'::bytea
                             || convert_to('MM GPSLatitude 48.85837 N GPSLongitude 2.29448 E', 'UTF8')) as exif,
       pg_temp.segment('e1', convert_to('http://ns.adobe.com/xap/1.0/ <x:xmpmeta>GPS 48.85837</x:xmpmeta>', 'UTF8')) as xmp,
       pg_temp.segment('e2', convert_to('ICC_PROFILE', 'UTF8')) as icc,
       pg_temp.segment('fe', convert_to('Taken at home, GPS 48.85837', 'UTF8')) as comment,
       pg_temp.segment('ee', '\x41646f626500640000000001'::bytea) as adobe,
       pg_temp.segment('ed', convert_to('Photoshop 3.0 GPS', 'UTF8')) as photoshop,
       pg_temp.segment('db', '\x00' || decode(repeat('01', 64), 'hex')) as dqt,
       pg_temp.segment('c0', '\x080001000101011100'::bytea) as sof,
       pg_temp.segment('c4', '\x00' || decode(repeat('00', 16), 'hex')) as dht,
       pg_temp.segment('da', '\x010100003f00'::bytea) || '\xd2cf20ff00a1ffd9'::bytea as scan;

select is(app.image_without_metadata(j.soi || j.jfif || j.exif || j.xmp || j.icc || j.comment || j.adobe || j.photoshop
                                     || j.dqt || j.sof || j.dht || j.scan),
          j.soi || j.jfif || j.adobe || j.dqt || j.sof || j.dht || j.scan,
          'a JPEG keeps SOI, JFIF, Adobe, tables, frame and scan, in order, and nothing else')
from jpeg j;
select is(app.image_without_metadata(j.soi || '\xffff'::bytea || j.exif || j.sof || j.scan), j.soi || j.sof || j.scan,
          'fill bytes before a marker are dropped with what they precede')
from jpeg j;

select is(test.error_of(format($$ select api.me_avatar_update(test.token('ann'), '{}', %L::bytea) $$,
                               (select j.soi || j.jfif || j.exif || j.comment || j.dqt || j.sof || j.dht || j.scan from jpeg j))),
          'ok', 'PUT /me/avatar takes a JPEG with GPS EXIF');
select is((select position(convert_to('GPS', 'UTF8') in a.data) from app.avatars a where a.user_id = test.uid('ann')), 0,
          '... and stores no byte of its GPS data');
select is((select a.data from app.avatars a where a.user_id = test.uid('ann')),
          (select j.soi || j.jfif || j.dqt || j.sof || j.dht || j.scan from jpeg j),
          '... but every segment a decoder reads (SOI, JFIF, DQT, SOF0, DHT, SOS to EOI)');
select is((select a.content_type from app.avatars a where a.user_id = test.uid('ann')), 'image/jpeg', '... as image/jpeg');

create temp table png as
select '\x89504e470d0a1a0a'::bytea as signature,
       pg_temp.chunk('IHDR', '\x00000001000000010806000000'::bytea) as ihdr,
       pg_temp.chunk('tEXt', convert_to('Comment', 'UTF8') || '\x00' || convert_to('GPS 48.85837', 'UTF8')) as text,
       pg_temp.chunk('zTXt', convert_to('Raw profile', 'UTF8') || '\x0000789c'::bytea) as ztext,
       pg_temp.chunk('iTXt', convert_to('XML:com.adobe.xmp', 'UTF8') || '\x0000000000'::bytea) as itext,
       pg_temp.chunk('eXIf', '\x4d4d002a'::bytea || convert_to('GPS', 'UTF8')) as exif,
       pg_temp.chunk('tIME', '\x07ea0c010c0000'::bytea) as time,
       pg_temp.chunk('PLTE', '\x000000'::bytea) as plte,
       pg_temp.chunk('IDAT', '\x789c6300010000050001'::bytea) as idat,
       pg_temp.chunk('IEND', ''::bytea) as iend;

select is(app.image_without_metadata(p.signature || p.ihdr || p.text || p.ztext || p.plte || p.itext || p.exif || p.time
                                     || p.idat || p.iend || convert_to('<html><script>alert(1)</script>', 'UTF8')),
          p.signature || p.ihdr || p.plte || p.idat || p.iend,
          'a PNG keeps its image chunks in order, without text, eXIf, tIME or anything after IEND')
from png p;
select is(test.error_of(format($$ select api.me_avatar_update(test.token('ann'), '{}', %L::bytea) $$,
                               (select p.signature || p.ihdr || p.exif || p.idat || p.iend from png p))),
          'ok', 'PUT /me/avatar takes a PNG with eXIf');
select is((select a.data from app.avatars a where a.user_id = test.uid('ann')),
          (select p.signature || p.ihdr || p.idat || p.iend from png p), '... and stores it without');

select is(app.image_without_metadata('\x89504e470d0a1a0a0000000d49484452'::bytea), '\x89504e470d0a1a0a0000000d49484452'::bytea,
          'a PNG cut short inside a chunk is kept as it came (nothing there is read as metadata by a decoder)');
select is(app.image_without_metadata((select j.soi || j.jfif from jpeg j) || '\xffe1ffff45786966'::bytea),
          (select j.soi || j.jfif from jpeg j) || '\xffe1ffff45786966'::bytea,
          'a JPEG segment longer than the file is kept as it came');
select is(app.image_without_metadata('\x474946383961'::bytea), '\x474946383961'::bytea, 'other bytes are returned unchanged');

select * from finish();
rollback;
