-- Spanish: every item and every tip, so a phone set to Spanish (es, es-MX, es-419…) gets the
-- whole catalog and every tip in it. Rows are keyed by the English seed's kind and slug (items)
-- and level and English title (tips), the same derivation as their ids; re-running changes
-- nothing. sql/tests/015_languages_coverage.sql checks that every offered language covers every
-- active item and tip. Offered last, after its rows: docs/languages.md.
insert into app.languages as l (tag, name)
values ('es', 'Español')
on conflict (tag) do update set name = excluded.name, updated_at = now()
where l.name is distinct from excluded.name;

insert into app.shop_item_translations as t (item_id, language, name, description)
select md5('focus-island:item:' || kind || ':' || slug)::uuid, 'es', name, description
from (values
    ('pet', 'sprout',       'Brote',            'Una plantita con cara. Le sale una hoja cada vez que terminas.'),
    ('pet', 'mochi-cat',    'Mochi la gata',    'Duerme la siesta sobre tus apuntes y ronronea mientras corre el temporizador.'),
    ('pet', 'pip-fox',      'Pip el zorro',     'Curioso, rápido y callado mientras sigas concentrado.'),
    ('pet', 'bao-panda',    'Bao el panda',     'Mastica bambú sin prisa. Enseña paciencia con el ejemplo.'),
    ('pet', 'ollie-owl',    'Ollie el búho',    'Vigila las sesiones de estudio de madrugada.'),
    ('pet', 'tuck-turtle',  'Tuck',             'Una tortuga convencida de que lento y constante se gana el semestre.'),
    ('pet', 'nova-axolotl', 'Nova',             'Un ajolote rosa que brilla suavemente después de las sesiones largas.'),
    ('pet', 'ember-dragon', 'Ascua',            'Un dragón de bolsillo. Echa aire tibio, nunca fuego.'),
    ('sound', 'soft-bell',   'Campana suave',    'Una sola campanada suave para cerrar la sesión.'),
    ('sound', 'rain-window', 'Lluvia en el cristal', 'Lluvia constante contra el cristal de una ventana.'),
    ('sound', 'forest-dawn', 'Amanecer en el bosque', 'Cantos de pájaros y hojas en un bosque al alba.'),
    ('sound', 'ocean-tide',  'Marea',            'Olas lentas que llegan a una playa de arena.'),
    ('sound', 'cafe-murmur', 'Murmullo de café', 'Voces bajas y tazas, el zumbido de un café de barrio.'),
    ('sound', 'campfire',    'Fogata',           'Leña que crepita bajo el cielo abierto.'),
    ('sound', 'brown-noise', 'Ruido marrón',     'Un rumor grave y uniforme que tapa el mundo.'),
    ('sound', 'wind-chimes', 'Móvil de viento',  'Cañas de bambú que se mecen con una brisa ligera.'),
    ('furniture', 'straw-mat',      'Estera de paja',     'Una sencilla estera tejida para sentarse.'),
    ('furniture', 'oak-desk',       'Escritorio de roble', 'Un escritorio robusto con sitio para todos tus libros.'),
    ('furniture', 'reading-lamp',   'Lámpara de lectura', 'Luz cálida que mantiene tus ojos descansados.'),
    ('furniture', 'beanbag',        'Puf',                'Para los descansos bien ganados entre sesiones.'),
    ('furniture', 'bookshelf',      'Estantería',         'Cinco baldas para los libros que terminaste.'),
    ('furniture', 'fern-pot',       'Helecho en maceta',  'Un helecho que crece con la calma.'),
    ('furniture', 'hammock',        'Hamaca',             'Colgada entre dos palmeras al borde de la isla.'),
    ('furniture', 'lantern-string', 'Guirnalda de farolillos', 'Farolillos de papel para estudiar al anochecer.'),
    ('furniture', 'telescope',      'Telescopio',         'Para mirar las estrellas después de la última sesión.'),
    ('furniture', 'treehouse',      'Casa del árbol',     'Un escondite en el gran árbol, la corona de la isla.'),
    ('furniture', 'snow-globe',     'Bola de nieve',      'Una isla diminuta bajo la nieve. Agítala entre dos sesiones.')
) as seed (kind, slug, name, description)
on conflict (item_id, language) do update
set name = excluded.name, description = excluded.description, updated_at = now()
where (t.name, t.description) is distinct from (excluded.name, excluded.description);

insert into app.mindfulness_tip_translations as t (tip_id, language, title, content)
select md5('focus-island:tip:' || level || ':' || english)::uuid, 'es', title, content
from (values
    ('bad', 'Box breathing', 'Respiración cuadrada',
     'Inspira contando cuatro, retén cuatro, espira cuatro, retén cuatro. Haz cuatro rondas. Un ritmo constante le dice a tu cuerpo que la emergencia ha pasado.'),
    ('bad', 'Name five things', 'Nombra cinco cosas',
     'Mira a tu alrededor y nombra cinco cosas que ves, cuatro que puedes tocar, tres que oyes, dos que hueles y una que saboreas. Saca la atención de la preocupación y la trae a la habitación.'),
    ('bad', 'A hard session is still a session', 'Una sesión difícil también cuenta',
     'Te presentaste y lo intentaste. Concentrarse es una habilidad, y las habilidades tienen días malos. Escribe una frase sobre lo que se interpuso y déjalo ir.'),
    ('bad', 'Unclench', 'Suelta la tensión',
     'Revisa la mandíbula, los hombros y las manos. El estrés se esconde en ellos. Deja caer cada uno y suelta el aire despacio mientras lo haces.'),
    ('bad', 'Longer out than in', 'Espira más de lo que inspiras',
     'Inspira por la nariz contando cuatro y espira por la boca contando seis. Una espiración larga calma el corazón en menos de un minuto.'),
    ('bad', 'Shrink the task', 'Achica la tarea',
     'Cuando todo parece demasiado grande, elige el paso siguiente más pequeño: abrir el libro, escribir el título, resolver un problema. Empieza ahí y solo ahí.'),
    ('bad', 'Walk it off', 'Sal a caminar',
     'Levántate y camina cinco minutos, mejor al aire libre. El movimiento quema la inquietud que hace tan difícil quedarse quieto.'),
    ('bad', 'Park the worry', 'Aparca la preocupación',
     'Escribe lo que te preocupa y cuándo te ocuparás de ello. Tu mente puede soltar una preocupación cuando sabe que no se olvidará.'),
    ('bad', 'Cold water reset', 'Reinicio con agua fría',
     'Échate agua fría en la cara o sostén algo frío durante treinta segundos. El golpe de frío calma enseguida un corazón acelerado.'),
    ('bad', 'Talk to yourself kindly', 'Háblate con amabilidad',
     'Pregúntate qué le dirías a un amigo que hubiera tenido esta sesión. Dítelo a ti, en voz alta si puedes.'),
    ('bad', 'Fewer tabs, fewer thoughts', 'Menos pestañas, menos pensamientos',
     'Cierra todas las ventanas y pestañas que no necesites para la próxima sesión. Una pantalla desordenada mantiene saltando a una mente estresada.'),
    ('bad', 'Permission to rest', 'Permiso para descansar',
     'Si estás agotado, un descanso corto es parte del trabajo, no un fracaso. Pon un temporizador de diez minutos, túmbate y vuelve a intentarlo después.'),
    ('fine', 'Stretch the long muscles', 'Estira los músculos largos',
     'Sube los brazos por encima de la cabeza, luego inclínate hacia delante y deja colgar la cabeza. Treinta segundos de cada forma deshacen mucho rato sentado.'),
    ('fine', 'Drink a glass of water', 'Bebe un vaso de agua',
     'La sed leve se siente como cansancio y niebla. Bebe un vaso entero antes de la próxima sesión y fíjate en si se te aclara la cabeza.'),
    ('fine', 'Catch one distraction', 'Atrapa una distracción',
     'Piensa en lo que más veces te apartó. Ponlo fuera de tu alcance antes de la próxima sesión: el móvil en otra habitación, las notificaciones apagadas.'),
    ('fine', 'Look far away', 'Mira a lo lejos',
     'Descansa la vista mirando algo a seis metros o más durante veinte segundos. El trabajo de cerca cansa los ojos más de lo que notas.'),
    ('fine', 'One breath between tasks', 'Una respiración entre tareas',
     'Antes de empezar la siguiente tarea, respira una vez despacio y di lo que vas a hacer. Un comienzo claro da una sesión más estable.'),
    ('fine', 'Notice what worked', 'Fíjate en lo que funcionó',
     'Algo en esta sesión salió bien, aunque no todo. Ponle nombre y repítelo la próxima vez.'),
    ('fine', 'Tidy for one minute', 'Ordena durante un minuto',
     'Quita de tu mesa todo lo que la próxima sesión no necesita. Un espacio ordenado pide menos a tu atención.'),
    ('fine', 'Body scan', 'Recorrido por el cuerpo',
     'Cierra los ojos y lleva la atención de los dedos de los pies a la coronilla, notando cada parte sin cambiarla. Dos minutos bastan.'),
    ('fine', 'Light and air', 'Luz y aire',
     'Abre una ventana o sal un momento a la luz del día. El aire fresco y la luz natural te mantienen despierto más tiempo que otro café.'),
    ('fine', 'Set a tiny goal', 'Ponte una meta pequeña',
     'Decide una cosa concreta que terminará la próxima sesión. Una meta pequeña y clara es más fácil de enfocar que una esperanza vaga.'),
    ('fine', 'Posture check', 'Revisa tu postura',
     'Siéntate con los dos pies en el suelo y la pantalla a la altura de los ojos. La comodidad en la que no tienes que pensar deja más sitio para el trabajo.'),
    ('fine', 'Mindful snack', 'Tentempié consciente',
     'Si comes algo, cómelo despacio y sin pantalla. Fíjate en el sabor y la textura; es una pausa pequeña que de verdad descansa la mente.'),
    ('good', 'Savor the finish', 'Saborea el final',
     'Detente un momento y nota lo que se siente al haberte concentrado bien. Recordar esta sensación hace más fácil el próximo comienzo.'),
    ('good', 'Three good things', 'Tres cosas buenas',
     'Escribe tres cosas que hoy salieron bien, por pequeñas que sean. La gratitud convierte una buena sesión en un buen día.'),
    ('good', 'Carry the calm', 'Llévate la calma',
     'Respira tres veces despacio y nota la calma que has construido. Puedes volver a esta respiración cuando la próxima tarea pese.'),
    ('good', 'Plan the next start', 'Planea el próximo comienzo',
     'Con la mente despejada, decide cuándo y dónde será tu próxima sesión. Una buena sesión es el mejor momento para planear otra.'),
    ('good', 'Share the island', 'Comparte la isla',
     'Cuéntale a un amigo lo que terminaste, o invítale a concentrarse contigo. La calma y los buenos hábitos se contagian.'),
    ('good', 'Open awareness', 'Atención abierta',
     'Quédate quieto un minuto y deja que los sonidos vengan y se vayan sin ponerles nombre. Una mente descansada y abierta está lista para lo que venga.'),
    ('good', 'Reward yourself gently', 'Prémiate con suavidad',
     'Elige un premio pequeño que no rompa tu ritmo: un paseo corto, una canción, una taza de té. Disfrútalo del todo.'),
    ('good', 'Notice your breath', 'Observa tu respiración',
     'Sigue diez respiraciones sin cambiarlas, contando cada espiración. Si pierdes la cuenta, vuelve a empezar en uno, sin juzgarte.'),
    ('good', 'Write what you learned', 'Escribe lo que aprendiste',
     'Resume en dos frases lo que aprendiste o hiciste. Ponerlo en palabras lo fija en la memoria.'),
    ('good', 'Stretch and smile', 'Estírate y sonríe',
     'Ponte de pie, abre bien los brazos y sonríe, aunque te parezca tonto. El cuerpo también recuerda las buenas sesiones.'),
    ('good', 'Keep the streak kind', 'Una racha amable',
     'La constancia gana a la intensidad. Una sesión corta mañana mantiene el impulso de hoy mejor que una larga la semana que viene.'),
    ('good', 'Loving-kindness minute', 'Un minuto de bondad',
     'Deséate el bien en silencio, luego a alguien a quien quieres, luego a alguien que te resulta difícil: que estés en calma, que estés bien.')
) as seed (level, english, title, content)
on conflict (tip_id, language) do update
set title = excluded.title, content = excluded.content, updated_at = now()
where (t.title, t.content) is distinct from (excluded.title, excluded.content);

-- The reminders' texts (app.reminder_texts: a mail's title and body; the phone's strings for each
-- loc_key are made from them). {name}: the asker's or the host's display name.
insert into app.reminder_texts as t (type, language, title, body)
values
    ('reminder.streak_at_risk', 'es', 'Tu racha termina a medianoche', 'Concéntrate unos minutos hoy para mantener tu racha.'),
    ('reminder.goal_reached', 'es', 'Meta cumplida', 'Has alcanzado tu meta de concentración de hoy. ¡Bien hecho!'),
    ('reminder.friend_request', 'es', 'Una solicitud de amistad te espera', '{name} te pidió ayer ser tu amigo.'),
    ('reminder.room_invite', 'es', 'Únete a una sala de concentración', '{name} te invitó a concentraros juntos.')
on conflict (type, language) do update set title = excluded.title, body = excluded.body
where (t.title, t.body) is distinct from (excluded.title, excluded.body);

-- Offered once its rows are there.
update app.languages l set offered = true, updated_at = now() where l.tag = 'es' and not l.offered;
