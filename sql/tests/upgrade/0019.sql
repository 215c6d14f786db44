-- Data after 0019: a bio, and one at the limit (160 characters, an emoji sequence with zero-width
-- joiners among them).
update app.users set bio = 'Gardener of small habits.' where id = '11111111-1111-4111-8111-111111111111';
update app.users set bio = repeat('Focus ', 25) || U&'\+01F469\200D\+01F33E' || repeat('x', 7)
where id = '22222222-2222-4222-8222-222222222222';
