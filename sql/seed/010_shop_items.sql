-- Shop catalog: 8 pets, 8 app sounds, 10 pieces of furniture, one free starter of each kind.
-- Ids are derived from kind and slug, so they are the same in every environment and a phone's
-- cached ids stay valid. Re-running changes nothing (rows that did not change are not touched,
-- so the catalog version and its ETag stay put).
insert into app.shop_items as i (id, kind, name, description, price, image, sound, sort_order, is_starter)
select md5('focus-island:item:' || kind || ':' || slug)::uuid, kind, name, description, price,
       kind || '/' || slug || '.png', case when kind = 'sound' then 'sounds/' || slug || '.m4a' end,
       sort_order, starter
from (values
    ('pet', 'sprout',      'Sprout',        'A seedling with a face. It grows a leaf every time you finish.', 0, 10, true),
    ('pet', 'mochi-cat',   'Mochi the Cat', 'Naps on your notes and purrs while the timer runs.',           120, 20, false),
    ('pet', 'pip-fox',     'Pip the Fox',   'Curious, quick, and quiet as long as you are focused.',        180, 30, false),
    ('pet', 'bao-panda',   'Bao the Panda', 'Chews bamboo slowly. Teaches patience by example.',            240, 40, false),
    ('pet', 'ollie-owl',   'Ollie the Owl', 'Keeps watch over late-night study sessions.',                  300, 50, false),
    ('pet', 'tuck-turtle', 'Tuck',          'A tortoise who believes slow and steady wins the semester.',   360, 60, false),
    ('pet', 'nova-axolotl','Nova',          'A pink axolotl that glows softly after long sessions.',        450, 70, false),
    ('pet', 'ember-dragon','Ember',         'A pocket dragon. Breathes warm air, never fire.',              600, 80, false),
    ('sound', 'soft-bell',   'Soft Bell',     'A single gentle bell to end a session.',                       0, 10, true),
    ('sound', 'rain-window', 'Rain on Glass', 'Steady rain against a window pane.',                          80, 20, false),
    ('sound', 'forest-dawn', 'Forest Dawn',   'Birdsong and leaves in an early forest.',                     100, 30, false),
    ('sound', 'ocean-tide',  'Ocean Tide',    'Slow waves rolling onto a sandy beach.',                      100, 40, false),
    ('sound', 'cafe-murmur', 'Cafe Murmur',   'Quiet voices and cups, the hum of a corner cafe.',            120, 50, false),
    ('sound', 'campfire',    'Campfire',      'Crackling wood under an open sky.',                           140, 60, false),
    ('sound', 'brown-noise', 'Brown Noise',   'A deep, even rumble that masks the world.',                   150, 70, false),
    ('sound', 'wind-chimes', 'Wind Chimes',   'Bamboo chimes stirring in a light breeze.',                   160, 80, false),
    ('furniture', 'straw-mat',     'Straw Mat',      'A simple woven mat to sit on.',                          0,  10, true),
    ('furniture', 'oak-desk',      'Oak Desk',       'A sturdy desk with room for every book.',                150, 20, false),
    ('furniture', 'reading-lamp',  'Reading Lamp',   'Warm light that keeps your eyes fresh.',                  90, 30, false),
    ('furniture', 'beanbag',       'Beanbag',        'For well-earned breaks between sessions.',               110, 40, false),
    ('furniture', 'bookshelf',     'Bookshelf',      'Five shelves for the books you finished.',               200, 50, false),
    ('furniture', 'fern-pot',      'Potted Fern',    'A fern that thrives on calm.',                            70, 60, false),
    ('furniture', 'hammock',       'Hammock',        'Strung between two palms at the island''s edge.',        260, 70, false),
    ('furniture', 'lantern-string','Lantern String', 'Paper lanterns for evening study.',                      130, 80, false),
    ('furniture', 'telescope',     'Telescope',      'For looking at stars after the last session.',           420, 90, false),
    ('furniture', 'treehouse',     'Treehouse',      'A hideout in the big tree, the island''s crown.',       900, 100, false)
) as seed (kind, slug, name, description, price, sort_order, starter)
on conflict (id) do update
set name = excluded.name, description = excluded.description, price = excluded.price,
    image = excluded.image, sound = excluded.sound, sort_order = excluded.sort_order,
    is_starter = excluded.is_starter, active = true, updated_at = now()
where (i.name, i.description, i.price, i.image, i.sound, i.sort_order, i.is_starter, i.active)
      is distinct from
      (excluded.name, excluded.description, excluded.price, excluded.image, excluded.sound,
       excluded.sort_order, excluded.is_starter, true);
