-- Every offered language covers every active item, tip and reminder (the seed ships Spanish whole).
-- clock: any
begin;
select plan(5);

select ok(exists (select from app.languages where offered), 'the seed offers a language besides English');
select is_empty($$
    select l.tag, i.kind, i.name from app.languages l cross join app.shop_items i
    where l.offered and i.active
      and not exists (select from app.shop_item_translations t where t.item_id = i.id and t.language = l.tag)
$$, 'every offered language names and describes every active item');
select is_empty($$
    select l.tag, t.rating_level, t.title from app.languages l cross join app.mindfulness_tips t
    where l.offered and t.active
      and not exists (select from app.mindfulness_tip_translations x where x.tip_id = t.id and x.language = l.tag)
$$, 'every offered language has every active tip');

select is_empty($$
    select l.tag, r.type from app.languages l cross join app.reminder_types r
    where l.offered and not exists (select from app.reminder_texts x where x.type = r.type and x.language = l.tag)
$$, 'every offered language has every reminder''s text');
select is_empty($$
    select r.type from app.reminder_types r
    where not exists (select from app.reminder_texts x where x.type = r.type and x.language = 'en')
$$, 'every reminder has its English text');

select * from finish();
rollback;
