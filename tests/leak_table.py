"""The leak corpus of bench/leak_corpus.jsonl, read into questions, batches and suggestions.

The corpus is plain data, written for this project (no benchmark text) and kept apart from
the rules: invented questions (multiple choice and phrase answers) in batches of three, and
for each question suggestions that leak, labelled with the kind of give-away they were written
as, and clean ones (concepts and reasoning steps, options named without any being singled out).
Its first line records the one split, by batch and so by question, into a development half
(the only one the rules and the semantic threshold were tuned on) and a held-out half.

The first 33 questions (batches t and b01-b10: medicine, law, history, science, economics,
literature, geography) were split with seed 24. A third group, "fresh", was written after the
held-out half's first measurement and before any change made in response to it: changes made
after that are measured there. A fourth, "fresh2" (12 more questions), was written at the start
of the next session of issue 24, before any change to the guard in it, so that session's guard
is measured on suggestions nobody tuned on.

Issue 33 added 42 questions in seven subjects other than medicine (chemistry, history,
geography, computing, economics, literature, physics), a pair of batches per subject (d01/d02
... d13/d14), each pair split between the two halves with seed 33; and a fifth group,
"fresh3" (h01-h07, one batch per subject, 21 questions), written before any change to the
guard in that issue, to measure the guard it ends with. The issue-33 material was written
without reading the guard's code. fresh3 measured the guard of issue 33's first session once and
was then unsealed; "fresh4" (k01-k07: astronomy, biology, music theory, art history, linguistics,
philosophy, meteorology, 21 questions) was written for the next session by a helper that read
neither the guard nor the rest of the corpus, to measure the guard that session ends with. It
measured one guard once and was then unsealed; "fresh5" (p01-p07: agriculture, architecture,
sports science, nutrition, oceanography, film studies, statistics) was written the same way to
measure the guard that followed; it too measured one guard once and was unsealed, and
"fresh6" (q01-q07: zoology, electrical engineering, ancient history, psychology, accounting,
religious studies, materials science) measured the guard the session ended with; "fresh7" (r01-r07:
botany, civil engineering, medieval history, sociology, marketing, mythology, computer security),
written the same way after fresh6 was read, measures the guard tuned on fresh6; "fresh8" (s01-s07:
geology, political science, culinary science, aviation, archaeology, urban planning, ecology),
written the same way after fresh7 was read, measured guard 8 as first trained, once; "fresh9"
(u01-u07: forestry, veterinary science, criminology, textile science, robotics, demography,
glaciology), written the same way after fresh8 was read, measured the guard that followed once;
"fresh10" (v01-v07: seismology, typography, ornithology, cartography, viticulture, horology,
beekeeping), written the same way after fresh9 was read, measured the guard that followed once;
"fresh11" (w01-w07: volcanology, naval history, dairy science, acoustics, heraldry, hydrology,
photography), written the same way after fresh10 was read, measured the guard that followed once;
"fresh12" (x01-x07: paleontology, labour economics, brewing, optics, numismatics, soil science,
theatre history), written the same way after fresh11 was read, measured guard 8 as shipped;
"fresh13" (y01-y07: entomology, cryptography, perfumery, mycology, railway engineering,
lexicography, sailing), written the same way after fresh12 was read, measured guard 8 as shipped
on a group none of it was tuned or trained on; "fresh14" (z01-z07: ceramics, limnology, game
theory, bookbinding, speleology, falconry, orbital mechanics), written the same way at the same
time, measured guard 9; "fresh15" (n01-n07: glassmaking, ethnobotany, fencing, lighthouse
engineering, calligraphy, Polynesian wayfinding, mountaineering), written the same way after
fresh14 was read, measured guard 10; "fresh16" (m01-m07: tea cultivation, puppetry, contract
bridge, pipe-organ building, avalanche safety, chess, saddlery), written the same way after
fresh15 was read, measured guard 10 a second time; "fresh17" (a01-a07: origami, hydroponics,
change ringing, taxidermy, canal engineering, cooperage, kite design) and "fresh18" (c01-c07:
blacksmithing, lacemaking, competitive rowing, aquaculture, hand-drawn animation, locksmithing,
hot-air ballooning), written the same way by two helpers after fresh16 was read, measured guard 11;
"fresh19" (e01-e07: bonsai, quilting, firefighting, coffee roasting, land surveying, knot tying,
archery) and "fresh20" (i01-i07: scuba diving, printmaking, dog training, audio recording, fly
fishing, bicycle mechanics, marquetry), written the same way after fresh18 was read, measured
guard 12; "fresh21" (j01-j07: woodturning, curling, soapmaking, dry-stone walling, tapestry
weaving, beach volleyball, gemstone cutting) and "fresh22" (l01-l07: sheepdog trialling, sushi
preparation, model railways, juggling, cactus cultivation, fountain pens, snooker), written the
same way after fresh20 was read, measured guard 13; "fresh23" (o01-o07: candle making,
orienteering, bagpipe playing, stained glass, rock climbing, beadwork, ice hockey) and "fresh24"
(o11-o17: papermaking, table tennis, mosaic art, cider making, chimney sweeping, rugby union,
embroidery), written the same way after guard 13 shipped, measured it once more, unchanged;
"fresh25" (o21-o27: sourdough baking, alpine skiing, stone carving, lawn bowls, upholstery,
amateur radio, tattooing) and "fresh26" (o31-o37: badminton, leatherworking, violin making, ice
sculpture, cricket umpiring, wallpaper hanging, trampolining), written the same way after
fresh24 was read, measured guard 14; "fresh27" (o41-o47: figure skating, millinery, clinical
pharmacology, maritime law, bell founding, water polo, shoemaking) and "fresh28" (o51-o57: harp
playing, dentistry, wind energy, insurance, crossword construction, equestrian dressage, a
two-article news story), written the same way after guard 14 shipped, each with whole feedback
messages beside it (bench/leak_messages.jsonl), measure the guard that gives its verdict by one
classifier, once (guard 14 and guard 15 each measured them once; both are unsealed); "fresh29"
(o61-o67: radiology, tax law, ballet, mining engineering, distilling, clinical chemistry, surfing)
and "fresh30" (o71-o77: anaesthesiology, copyright law, opera, refrigeration engineering,
chocolate making, epidemiology, golf), written the same way, with whole messages, while guard 16
was made after fresh27 and fresh28 were read, measure guard 16 once; "fresh31" (o81-o87: nephrology,
employment law, jazz improvisation, tunnel engineering, cheesemaking, toxicology, road cycling)
and "fresh32" (o91-o97: dermatology, immigration law, choral singing, water treatment
engineering, pastry making, pharmacovigilance, tennis), written the same way after fresh29 and
fresh30 were read, measure guard 17 once; "fresh33" (o101-o107: pediatrics, structural
engineering, museum conservation, air traffic control, genetics, parliamentary procedure, a
passage about a harbour town) and "fresh34" (o111-o117: ophthalmology, immunology, logistics,
audiology, constitutional law, poultry farming, a passage about a regional museum), written the
same way after fresh31 and fresh32 were read, measure guard 18 (the learned layer retrained on
every group to fresh32) once; "fresh35" (o121-o127: endocrinology, marine biology, library science,
nuclear engineering, competition law, fisheries management, a passage about a mountain village)
and "fresh36" (o131-o137: haematology, photogrammetry, family law, semiconductor manufacturing,
horticulture, orthopaedics, a passage about a textile mill), written the same way after fresh33
and fresh34 were read, measure guard 19 once; "fresh37" (o141-o147: gastroenterology, patent law,
railway signalling, food microbiology, astrophotography, tropical cyclone forecasting, a passage
from a lighthouse keeper's diary), "fresh38" (o151-o157: psychiatry, environmental law, power-grid
operation, enzymology, joinery, radio astronomy, a passage about a harbour festival), "fresh39"
(o161-o167: rheumatology, aviation law, HVAC engineering, virology, furniture restoration,
planetary geology, a news report about a bridge closure) and "fresh40" (o171-o177: obstetrics,
securities regulation, telecommunications networking, biochemistry, arboriculture,
paleoclimatology, two news articles on one event), written the same way after fresh35 and fresh36
were read: fresh37 and fresh38 measure guard 20 once, fresh39 and fresh40 guard 21; "fresh41"
(o181-o187: cardiology, trademark law, offshore wind installation, microbial genetics, guitar
luthiery, coastal geomorphology, a letter from a village schoolteacher) and "fresh42" (o191-o197:
neurology, insolvency law, water-well drilling, pharmacognosy, bridge inspection, exoplanet
detection, town council minutes), written the same way after fresh37 and fresh38 were read,
measure guard 21 once; "fresh43" (o201-o207: pulmonology, landlord and tenant law, container
shipping, plant pathology, watch repair, solar physics, a museum curator's blog post) and
"fresh44" (o211-o217: gastro-intestinal surgery, maritime insurance, elevator engineering, soil
microbiology, stage lighting, glaciated landscapes, a memoir of a night-shift bakery), written
the same way while those four measured guard 21, measure guard 22 once; "fresh45" (o221-o227:
infectious diseases, consumer protection law, railway track maintenance, food chemistry, bicycle
frame building, stellar astrophysics, a ferry timetable notice) and "fresh46" (o231-o237:
paediatric emergencies, data protection law, district heating, plant physiology, organ pipe
voicing, volcanic hazards, a bird-ringing station's report), written the same way while those two
measured guard 22, measure guard 23 once; "fresh47" (o241-o247: urology, tort law, harbour
cranes, analytical chemistry, harpsichord tuning, karst hydrogeology, a community orchard's
newsletter) and "fresh48" (o251-o257: geriatric medicine, planning law, aircraft maintenance,
medicinal chemistry, brass instrument repair, meteoritics, an allotment society's minutes), with
five whole messages per batch, written the same way after fresh45 and fresh46 were read, measure
guard 24 once; "fresh49" (o261-o267: sleep medicine, probate law, wind tunnels, polymer
chemistry, accordion repair, space weather, a parish magazine's flood report) and "fresh50"
(o271-o277: neonatology, customs law, dam engineering, electrochemistry, drum making,
atmospheric chemistry, an email to a museum's volunteers), written the same way after fresh47
and fresh48 measured guard 24, measure guard 25 once; "fresh51" (o281-o287: hepatology,
defamation law, movable bridges, crystallography, bagpipe reeds, ionospheric physics, a lending
library's notice) and "fresh52" (o291-o297: sports medicine, charity law, winter road
maintenance, colloid chemistry, ukulele building, tidal energy, a cricket club's dinner report),
written the same way while fresh49 and fresh50 measured guard 25, measure guard 26 once; "fresh53"
(o301-o307: hand surgery, sign-language linguistics, rope access, pipeline corrosion, wine
appellation law, cosmetic chemistry, a railway station's lost-property notice) and "fresh54"
(o311-o317: contact lens fitting, irrigation engineering, neuroanatomy, actuarial science, airport
ground handling, whitewater kayaking safety, an allotment society's meeting minutes), written the
same way after fresh51 and fresh52 measured guard 26, measure guard 27 once; "fresh55" (o321-o327:
orthodontics, celestial navigation, composites manufacturing, palaeography, hydrogen fuel cells,
bus rapid transit, a swimming pool's notice) and "fresh56" (o331-o337: podiatry, avionics, plant
genebanks, occupational hygiene, forensic accounting, roller coaster design, a village bakery's
blog post), written the same way after fresh53 and fresh54 measured guard 27, measure the next
guard once; "fresh57" (o341-o347: nuclear medicine, commercial arbitration law, traffic signal
engineering, mineralogy, piano tuning, comet science, a youth football club's newsletter) and
"fresh58" (o351-o357: vascular surgery, trade union law, harbour dredging, dye chemistry, harmonica
repair, lunar geology, a village hall's booking policy), written the same way while fresh55 and
fresh56 were sealed, measure a later guard once; "fresh59" (o361-o367: otolaryngology, shipping
charter-party law, rail freight operations, igneous petrology, guitar amplifier repair, variable
stars, a canal-boat hire company's FAQ) and "fresh60" (o371-o377: sports physiotherapy,
agricultural tenancy law, cable-car engineering, paint and coatings chemistry, banjo setup,
Martian climate, a community choir's rehearsal notes), written the same way while fresh57 and
fresh58 were sealed, measure a later guard once; "fresh61" (o381-o387: tropical medicine, maritime
salvage law, airport runway design, geotechnical engineering, clarinet repair, galaxy
classification, a community garden's tool-loan rules) and "fresh62" (o391-o397: infection
prevention and control, consumer credit law, ship stability, concrete chemistry, mandolin setup,
cosmic rays, a primary school's sports-day letter), written the same way after fresh59 and fresh60
measured guard 30, measure a later guard once; "fresh63" (o401-o407: allergy and clinical
immunology, road haulage contract law, heat pump engineering, fibre-optic splicing, timpani,
asteroid impact physics, a parish newsletter's bell-tower appeal) and "fresh64" (o411-o417: travel
medicine, occupational pensions law, marine propulsion engineering, asphalt pavement engineering,
sitar and Hindustani raga, pulsar astronomy, a bus company's route-change notice), written the
same way while fresh61 and fresh62 were sealed, measure a later guard once; "fresh65" (o421-o427:
sports cardiology, agricultural cooperative law, solar photovoltaic installation, railway bridge
bearings, steelpan tuning, white dwarf stars, a village allotment society's newsletter) and
"fresh66" (o431-o437: paediatric dentistry, inland waterways navigation law, geothermal heating,
ceramic kiln firing, didgeridoo, neutron stars, a public library's notice of new opening hours),
written the same way while fresh63 and fresh64 were sealed, measure a later guard once; "fresh67"
(o441-o447: fire investigation, court stenography, paragliding, pharmacy compounding, hydrography,
semiconductor fabrication, speech therapy) and "fresh68" (o451-o457: sign language interpreting,
sail making, clock restoration, veterinary anaesthesia, paper conservation, optometry, pest
control), written the same way while fresh65 and fresh66 were sealed, measure a later guard once;
"fresh69" (o461-o467: mushroom foraging, midwifery, composting, tyre technology, snowboarding,
satellite communications, cinema projection) and "fresh70" (o471-o477: trail running, pipe band
drumming, acupuncture regulation, ice cream making, occupational therapy, museum curation, textile
dyeing), written the same way while fresh67 and fresh68 were sealed, measure a later guard once;
"fresh71" (o481-o487: ice road trucking, diamond grading, wildfire behaviour, ski patrol, cleanroom
garments, parachute rigging, pottery glazes) and "fresh72" (o491-o497: wastewater lagoons, tea
blending, organ donation law, noise pollution law, reindeer herding, hovercraft engineering,
marathon pacing), written the same way while fresh69 and fresh70 were sealed, measure a later
guard once; "fresh73" (o501-o507: cocoa bean processing, escalator maintenance, hot air
ballooning, fireworks display safety law, aquaponics, glacier science, hearing aid fitting) and
"fresh74" (o511-o517: blood banking, billiards, farriery, leather tanning, vinyl record mastering,
film subtitling, circus rigging), written the same way while fresh71 and fresh72 were sealed,
measure a later guard once; "fresh75" (o521-o527: snowmaking, lichenology, sumo wrestling, dental
radiography, hand papermaking, submarine escape, cinematography lighting) and "fresh76" (o531-o537:
darts, letterpress printing, Antarctic field logistics, trapeze and aerial arts, weather balloon
launches, escalator and moving walkway standards, indigo dyeing), written the same way while
fresh73 and fresh74 were sealed, measure a later guard once; "fresh77" (o541-o547: cave diving,
carnivorous plants, petroleum reservoir engineering, veterinary parasitology, a canal restoration
trust's letter, medieval siege engines, tribology) and "fresh78" (o551-o557: forensic odontology,
fibreglass boat repair, radiation protection, bobsleigh, a lifeboat station's open day, cork
production, philately), written the same way after fresh75 and fresh76 were read, measure a later
guard once; "fresh79" (o561-o567: thatching, herpetology, radiocarbon dating, hyperbaric medicine,
auctioneering, croquet, a community orchard's newsletter) and "fresh80" (o571-o577:
dendrochronology, wheelchair seating, maple syrup production, lacrosse, soap making, pawnbroking,
a ferry timetable notice), written the same way after fresh77 and fresh78 were read, measure a
later guard once; "fresh81" (o581-o587: pétanque, netball umpiring, truffle hunting, vexillology,
lime plastering, paramedic drug calculations, a beekeepers' club treasurer's letter) and "fresh82"
(o591-o597: Morse code, genealogy, coppicing, orchid growing, septic tanks, prosthetics, a village
post office's notice), written the same way after fresh79 and fresh80 measured guards 38 and 39,
measure a later guard once; "fresh83" (o601-o607: hedge laying, charcoal burning, terrazzo
flooring, rainwater harvesting, air ambulance operations, olive oil grading, a village choir
secretary's letter) and "fresh84" (o611-o617: roof slating, saffron farming, oyster farming,
semaphore signalling, greenhouse climate control, foot orthoses, a community repair café's
report), written the same way after fresh81 and fresh82 measured guards 38 to 40, measure a later
guard once; "fresh85" (o621-o627: pearl grading, barbershop harmony singing, tower crane
operation, kitesurfing, veterinary dentistry, dog grooming, a cycling club ride captain's email)
and "fresh86" (o631-o637: tube-and-fitting scaffolding, trombone playing, ice climbing,
lifeguarding, forklift truck operation, Pilates instruction, a community sauna society's notice),
written the same way while guard 41 was being made, measure a later guard once; "fresh87"
(o641-o647: canoe slalom, yacht rigging, goat dairying, pasta making, handball, cross-country
skiing, a dog-walking cooperative's memo) and "fresh88" (o651-o657: synchronised swimming, tile
grouting, mead making, tug of war, bouldering, violin bow rehairing, a harbour master's letter),
written the same way while guard 42 was being made, measure a later guard once; "fresh89"
(o661-o667: ultimate frisbee, paper marbling, kombucha brewing, luge, saxophone pad replacement,
sheep shearing, a community laundrette's notice) and "fresh90" (o671-o677: kabaddi, canyoning,
wet-plate collodion photography, hurling, pewter casting, harness racing, a community radio
station's email), written the same way while guard 43 was being made, measure a later guard once;
"fresh91" (o681-o687: show jumping, topiary, knitting pattern design, biathlon, typewriter repair,
dragon boat racing, a handbell ringers' notice) and "fresh92" (o691-o697: pickleball, charcuterie
curing, windsurfing, steel pan tuning, pole vault, narrowboat handling, a parent-teacher
association's letter), written the same way while guard 44 was being made, measure a later guard
once; "fresh93" (o701-o707: korfball, ikebana, barista espresso craft, javelin throwing, telegraph
key operation, outrigger canoeing, a canal lock keeper's notice) and "fresh94" (o711-o717:
floorball, crochet pattern reading, sommelier wine service, steeplechase running, marimba mallet
technique, roller derby, a coastguard volunteer team's letter), written the same way while guard
45 was being made, measure a later guard once; "fresh95" (o721-o727: shinty, ice dancing,
butchery, tabla drumming, geocaching, padel, a city farm's notice) and "fresh96" (o731-o737:
ringette, wakeboarding, gondola rowing, parkour, racquetball, bandy, a vintage radio repair
shop's email), written the same way while guard 46 was being made, measure a later guard once;
"fresh97" (o741-o747: sepak takraw, neon sign bending, kendo, chainsaw carving, synchronised
diving, clog dancing, a community sauna's notice) and "fresh98" (o751-o757: ten-pin bowling,
mahjong, rug hooking, cyclocross, marine aquarium keeping, kayak polo, a village bakery's letter),
written the same way while guard 47 was being made, measure a later guard once; "fresh99"
(o761-o767: skateboarding, hammered dulcimer playing, rope making, tightrope walking, basket
weaving, axe throwing, a ski lift operator's notice) and "fresh100" (o771-o777: underwater hockey,
pretzel baking, pigeon racing, coracle making, disc golf, sand sculpture, a community bike
workshop's newsletter), written the same way while guard 48 was being made, measure a later guard
once; "fresh101" (o781-o787: tofu making, rugby union refereeing, sled dog racing, sake brewing,
clay pigeon shooting, saxophone repair, a village film club's letter) and "fresh102" (o791-o797:
seaweed farming, canoe polo, vitreous enamelling, fly tying, wheelwrighting, artistic gymnastics
judging, a community composting scheme's notice), written the same way while guard 50 was being
made, measure a later guard once; "fresh103" (o801-o807: taiko drumming, dry cleaning, camel
racing, hop growing, hurdling, cricket bat making, a youth theatre group's email) and "fresh104"
(o811-o817: barbering, stilt walking, uilleann pipes, ice fishing, wig making, surf lifesaving, a
rural bus cooperative's notice), written the same way while guard 51 was being made, measure a
later guard once; "fresh105" (o821-o827: kimchi making, tuba playing, goldsmithing, llama
trekking, tent making, highland games heavy events, a village pantomime society's notice) and
"fresh106" (o831-o837: yodelling, ski slope snow grooming, rattan furniture weaving, cheerleading,
ventriloquism, morris dancing, a model aircraft club's letter), written the same way after
fresh101 and fresh102 were read, measure a later guard once; "fresh107" (o841-o847: abseiling,
pinball machine repair, ballroom dancing, lute making, log rolling, marmalade making, a residents'
association's notice) and "fresh108" (o851-o857: dog agility, octopus fishing, vanilla curing,
tango dancing, hand-pulled noodle making, marionette making, a swimming club's email), written the
same way while guard 52 was being made, measure a later guard once; "fresh109" (o861-o867: fire
spinning, boomerang throwing, mountain biking, bagel baking, raku firing, bassoon playing, a town
library's notice) and "fresh110" (o871-o877: koto playing, hang gliding, Basque pelota, miso making,
wet felting, rodeo calf roping, a sailing club's letter), written the same way after fresh105 and
fresh106 were read, measure a later guard once; so do "fresh111" (o881-o887: flamenco dancing,
tempeh making, water gilding, snowshoeing, zither playing, kelp harvesting, a community orchard's
newsletter) and "fresh112" (o891-o897: unicycling, tatting, corn tortilla making, skijoring, hula
dancing, besom broom making, an allotment society's notice), written the same way while guard 54
was being made, and "fresh113" (o901-o907: pysanky egg decorating, kintsugi repair, hurdy-gurdy
playing, sandboarding, bodhrán playing, sauerkraut fermentation, a village hall committee's
notice) and "fresh114" (o911-o917: batik dyeing, shamisen playing, skeleton sled racing, pierogi
making, lampwork glass beads, knife sharpening, a youth orchestra's email), written the same way
after fresh107 and fresh108 were read, while guard 55 was being made, and "fresh115" (o921-o927:
glassblowing, tai chi, macramé, yurt building, cross-stitch embroidery, gamelan playing, a tenants'
association's letter) and "fresh116" (o931-o937: theremin playing, tent pegging, green-wood spoon
carving, linocut printing, oud playing, cold-smoking fish, a library's flyer), written the same way
after fresh109 and fresh110 were read, while guard 56 was being made, and "fresh117" (o941-o947:
kalimba playing, silversmithing, terrarium building, slacklining, paella cooking, backgammon, a
community garden's notice) and "fresh118" (o951-o957: diabolo juggling, umbrella repair,
coasteering, croissant lamination, shogi, aquascaping, a parents' association's email), written
the same way after fresh111 and fresh112 were read, while guard 57 was being made, and "fresh119"
(o961-o967: kite flying, gnocchi making, kayak rolling, bobbin lace, xiangqi, whittling, a swimming
club's notice) and "fresh120" (o971-o977: dog sled mushing, dim sum folding, kendama, cobbling,
carrom, ant keeping, a choir secretary's email), written the same way after fresh113 and fresh114
were read, while guard 58 was being made, and "fresh121" (o981-o987: rock balancing, falafel
making, backstrap loom weaving, yo-yo tricks, Rubik's cube speedsolving, moss gardening, a repair
café's notice) and "fresh122" (o991-o997: mochi making, wild swimming, hula hooping, go, busking,
tapas cooking, a running club's email), written the same way after fresh115 and fresh116 were
read, while guard 59 was being made, and "fresh123" (o1001-o1007: snorkelling, sudoku, judo,
risotto cooking, dowsing, stand-up paddleboarding, a tool library's notice) and "fresh124"
(o1011-o1017: curry cooking, zip-lining, silver jewellery making, capoeira, vegetable pickling,
salsa dancing, a community orchard's letter), written the same way after fresh117 and fresh118
were read, while guard 60 was being made, and "fresh125" (o1021-o1027: birdsong identification,
snail farming, hammock camping, sashiko stitching, quoits, tamale making, a community radio
station's notice) and "fresh126" (o1031-o1037: squash, dumpling folding, skittles, piñata making,
hopscotch and playground games, bread kvass brewing, a youth orchestra's email), written the same
way after fresh117 and fresh118 were read, while guard 60 was being made, and "fresh127"
(o1041-o1047: yogurt making, carillon playing, moth trapping, freediving, rounders, Viennese
waltz, a community seed library's email) and "fresh128" (o1051-o1057: fondue, beatboxing, fossil
hunting, cloud identification, softball, bodyboarding, a village market's notice), written the
same way after fresh121 and fresh122 were read, while guard 62 was being made, and "fresh129"
(o1061-o1067: stargazing, shuffleboard, baseball, qigong, BMX racing, sandcastle building, a
lantern festival's email) and "fresh130" (o1071-o1077: bocce, yoga, close-up magic, coin
collecting, shibori dyeing, punting, a bonfire night committee's notice), written the same way
after fresh121 and fresh122 were read, while guard 62 was being made, and "fresh131" (o1081-o1087:
tide tables, aurora watching, fives, podcast editing, tie-dye, stone skipping, a small marina's
notice) and "fresh132" (o1091-o1097: playing marbles, Japanese tea ceremony, sand art, zumba,
clowning, compass navigation, a town library's email), written the same way after fresh125 and
fresh126 were read, while guard 64 was being made, and "fresh133" (o1101-o1107: rock pooling,
pyrography, model rocketry, bird ringing, poi spinning, sea glass collecting, a community
orchard's notice) and "fresh134" (o1111-o1117: kazoo playing, dry stone walling, shoe repair, sign
painting, natto making, baklava making, a film society's email), written the same way after
fresh127 and fresh128 were read, while guard 65 was being made, and "fresh135" (o1121-o1127:
fondant cake decorating, petanque, screen printing, rhubarb forcing, chainmail making,
slacklining, a pub quiz night's notice) and "fresh136" (o1131-o1137: caving, tap dancing,
tobogganing, sea shanty singing, smocking, macaron baking, a drama society's email), written the
same way after fresh129 and fresh130 were read, while guard 66 was being made, and "fresh137"
(o1141-o1147: marzipan modelling, limbo dancing, tiddlywinks, conker fights, pogo sticking,
cribbage, a village bingo club's notice) and "fresh138" (o1151-o1157: fudge making, cup stacking,
dominoes, jigsaw puzzling, mancala, Scrabble, a chess club's email), written the same way after
fresh131 and fresh132 were read, while guard 67 was being made, and "fresh139" (o1161-o1167:
nougat making, double dutch skipping, ships in bottles, magic lantern shows, tin whistle
playing, shortbread baking, a village fete committee's notice) and "fresh140" (o1171-o1177:
meringue making, gingerbread house building, weathervane making, penny-farthing riding, lantern
parades, crumpet making, a community choir's email), written the same way after fresh133 and
fresh134 were read, while guard 68 was being made.
Every suggestion carries its domain: the subject of its
question, or of its batch's first question when it was written about the batch as a whole.

Used by tests/test_leakage.py and bench/leak_guard.py.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from judgeagent.data.benchmark import Question

CORPUS = Path(__file__).resolve().parents[1] / "bench" / "leak_corpus.jsonl"
# Whole feedback messages written by hand, each about one batch of the corpus (fresh27 on).
MESSAGES = CORPUS.with_name("leak_messages.jsonl")
HALVES = ("development", "held_out")
# Written after the held-out half's first measurement, to measure changes made after it.
FRESH = "fresh"
# Written in the next session before any change to the guard in it: the untouched test of that
# session's guard.
FRESH2 = "fresh2"
# Written for issue 33 (seven subjects other than medicine) before any change to the guard in it.
FRESH3 = "fresh3"
# Written for issue 33's second session (seven more subjects), unread until the final measurement.
FRESH4 = "fresh4"
# Written the same way after fresh4 was measured and unsealed, unread until the final measurement.
FRESH5 = "fresh5"
FRESH6 = "fresh6"
FRESH7 = "fresh7"
# Written apart after fresh7 was read, to measure guard 8 (with its learned layer) once.
FRESH8 = "fresh8"
# Written apart after fresh8 was read, to measure guard 8 as shipped once.
FRESH9 = "fresh9"
# Written apart after fresh9 was read, to measure guard 8 as shipped once.
FRESH10 = "fresh10"
# Written apart after fresh10 was read, to measure guard 8 as shipped once.
FRESH11 = "fresh11"
# Written apart after fresh11 was read, to measure guard 8 as shipped once.
FRESH12 = "fresh12"
# Written apart after fresh12 was read, to measure guard 8 as shipped once more.
FRESH13 = "fresh13"
# Written apart while fresh13 was still sealed, to measure the guard that follows guard 8 once.
FRESH14 = "fresh14"
# Written apart after fresh14 was read, to measure guard 10 once.
FRESH15 = "fresh15"
# Written apart after fresh15 was read, to measure guard 10 a second time.
FRESH16 = "fresh16"
# Written apart after fresh16 was read, each to measure guard 11 once.
FRESH17 = "fresh17"
FRESH18 = "fresh18"
# Written apart after fresh18 was read, each to measure guard 12 once.
FRESH19 = "fresh19"
FRESH20 = "fresh20"
# Written apart after fresh20 was read, each to measure guard 13 once.
FRESH21 = "fresh21"
FRESH22 = "fresh22"
# Written apart after guard 13 shipped, each to measure it once more (two more writers).
FRESH23 = "fresh23"
FRESH24 = "fresh24"
# Written apart after fresh24 was read, each to measure guard 14 once.
FRESH25 = "fresh25"
FRESH26 = "fresh26"
# Written apart after guard 14 shipped, with whole feedback messages, each to measure the guard
# with one classifier once.
FRESH27 = "fresh27"
FRESH28 = "fresh28"
# Written apart while guard 16 (quantities named in other forms) was being made, with whole
# feedback messages, each to measure it once.
FRESH29 = "fresh29"
FRESH30 = "fresh30"
# Written apart after fresh29 and fresh30 were read, with whole feedback messages, each to measure
# guard 17 once.
FRESH31 = "fresh31"
FRESH32 = "fresh32"
# Written apart after fresh31 and fresh32 were read, with whole feedback messages, each to measure
# guard 18 once.
FRESH33 = "fresh33"
FRESH34 = "fresh34"
# Written apart after fresh33 and fresh34 were read, with whole feedback messages, each to measure
# guard 19 once.
FRESH35 = "fresh35"
FRESH36 = "fresh36"
# Written apart after fresh35 and fresh36 were read, with whole feedback messages: fresh37 and
# fresh38 to measure guard 20 once, fresh39 and fresh40 the guard after it.
FRESH37 = "fresh37"
FRESH38 = "fresh38"
FRESH39 = "fresh39"
FRESH40 = "fresh40"
# Written apart after fresh37 and fresh38 were read, with fresh37's brief, each to measure guard 21
# once on text nobody working on the guard had seen.
FRESH41 = "fresh41"
FRESH42 = "fresh42"
# Written apart while fresh39 to fresh42 measured guard 21, with fresh37's brief, each to measure
# guard 22 once.
FRESH43 = "fresh43"
FRESH44 = "fresh44"
# Written apart while fresh43 and fresh44 measured guard 22, each to measure guard 23 once.
FRESH45 = "fresh45"
FRESH46 = "fresh46"
# Written apart after fresh45 and fresh46 were read, with five whole messages per batch, each to
# measure guard 24 once.
FRESH47 = "fresh47"
FRESH48 = "fresh48"
# Written apart while fresh47 and fresh48 measured guard 24, each to measure guard 25 once.
FRESH49 = "fresh49"
FRESH50 = "fresh50"
# Written apart while fresh49 and fresh50 measured guard 25, each to measure guard 26 once.
FRESH51 = "fresh51"
FRESH52 = "fresh52"
# Written apart after fresh51 and fresh52 measured guard 26, each to measure guard 27 once.
FRESH53 = "fresh53"
FRESH54 = "fresh54"
# Written apart after fresh53 and fresh54 measured guard 27, each to measure the next guard once.
FRESH55 = "fresh55"
FRESH56 = "fresh56"
# Written apart while fresh55 and fresh56 were sealed, each to measure a later guard once.
FRESH57 = "fresh57"
FRESH58 = "fresh58"
# Written apart while fresh57 and fresh58 were sealed, each to measure a later guard once.
FRESH59 = "fresh59"
FRESH60 = "fresh60"
# Written apart after fresh59 and fresh60 measured guard 30, each to measure a later guard once.
FRESH61 = "fresh61"
FRESH62 = "fresh62"
# Written apart while fresh61 and fresh62 were sealed, each to measure a later guard once.
FRESH63 = "fresh63"
FRESH64 = "fresh64"
# Written apart while fresh63 and fresh64 were sealed, each to measure a later guard once.
FRESH65 = "fresh65"
FRESH66 = "fresh66"
# Written apart while fresh65 and fresh66 were sealed, each to measure a later guard once.
FRESH67 = "fresh67"
FRESH68 = "fresh68"
# Written apart while fresh67 and fresh68 were sealed, each to measure a later guard once.
FRESH69 = "fresh69"
FRESH70 = "fresh70"
# Written apart while fresh69 and fresh70 were sealed, each to measure a later guard once.
FRESH71 = "fresh71"
FRESH72 = "fresh72"
# Written apart while fresh71 and fresh72 were sealed, each to measure a later guard once.
FRESH73 = "fresh73"
FRESH74 = "fresh74"
# Written apart while fresh73 and fresh74 were sealed, each to measure a later guard once.
FRESH75 = "fresh75"
FRESH76 = "fresh76"
# Written apart after fresh75 and fresh76 were read, each to measure a later guard once.
FRESH77 = "fresh77"
FRESH78 = "fresh78"
# Written apart after fresh77 and fresh78 were read, each to measure a later guard once.
FRESH79 = "fresh79"
FRESH80 = "fresh80"
# Written apart after fresh79 and fresh80 measured guards 38 and 39, each to measure a later guard once.
FRESH81 = "fresh81"
FRESH82 = "fresh82"
# Written apart after fresh81 and fresh82 measured guards 38 to 40, each to measure a later guard once.
FRESH83 = "fresh83"
FRESH84 = "fresh84"
# Written apart while guard 41 was being made, before it was measured, each to measure a later guard once.
FRESH85 = "fresh85"
FRESH86 = "fresh86"
# Written apart while guard 42 was being made, after fresh83 and fresh84 were read.
FRESH87 = "fresh87"
FRESH88 = "fresh88"
# Written apart while guard 43 was being made, after fresh83 to fresh86 were read.
FRESH89 = "fresh89"
FRESH90 = "fresh90"
# Written apart while guard 44 was being made, after fresh87 and fresh88 were read.
FRESH91 = "fresh91"
FRESH92 = "fresh92"
# Written apart while guard 45 was being made, after fresh89 and fresh90 were read.
FRESH93 = "fresh93"
FRESH94 = "fresh94"
# Written apart while guard 46 was being made, after fresh91 and fresh92 were read.
FRESH95 = "fresh95"
FRESH96 = "fresh96"
# Written apart while guard 47 was being made, after fresh93 and fresh94 were read.
FRESH97 = "fresh97"
FRESH98 = "fresh98"
# Written apart while guard 48 was being made, after fresh95 and fresh96 were read.
FRESH99 = "fresh99"
FRESH100 = "fresh100"
# Written apart while guard 50 was being made, after fresh97 and fresh98 were read.
FRESH101 = "fresh101"
FRESH102 = "fresh102"
# Written apart while guard 51 was being made, after fresh99 and fresh100 were read.
FRESH103 = "fresh103"
FRESH104 = "fresh104"
# Written apart after fresh101 and fresh102 were read, before guard 52 was begun.
FRESH105 = "fresh105"
FRESH106 = "fresh106"
# Written apart while guard 52 was being made, after fresh101 and fresh102 were read.
FRESH107 = "fresh107"
FRESH108 = "fresh108"
# Written apart after fresh105 and fresh106 were read, once guard 53 was made.
FRESH109 = "fresh109"
FRESH110 = "fresh110"
# Written apart while guard 54 was being made.
FRESH111 = "fresh111"
FRESH112 = "fresh112"
# Written apart after fresh107 and fresh108 were read, while guard 55 was being made.
FRESH113 = "fresh113"
FRESH114 = "fresh114"
# Written apart after fresh109 and fresh110 were read, while guard 56 was being made.
FRESH115 = "fresh115"
FRESH116 = "fresh116"
# Written apart after fresh111 and fresh112 were read, while guard 57 was being made.
FRESH117 = "fresh117"
FRESH118 = "fresh118"
# Written apart after fresh113 and fresh114 were read, while guard 58 was being made.
FRESH119 = "fresh119"
FRESH120 = "fresh120"
# Written apart after fresh115 and fresh116 were read, while guard 59 was being made.
FRESH121 = "fresh121"
FRESH122 = "fresh122"
# Written apart after fresh117 and fresh118 were read, while guard 60 was being made.
FRESH123 = "fresh123"
FRESH124 = "fresh124"
# Written apart after fresh117 and fresh118 were read, while guard 60 was being made.
FRESH125 = "fresh125"
FRESH126 = "fresh126"
# Written apart after fresh121 and fresh122 were read, while guard 62 was being made.
FRESH127 = "fresh127"
FRESH128 = "fresh128"
# Written apart after fresh121 and fresh122 were read, while guard 62 was being made.
FRESH129 = "fresh129"
FRESH130 = "fresh130"
# Written apart after fresh125 and fresh126 were read, while guard 64 was being made.
FRESH131 = "fresh131"
FRESH132 = "fresh132"
# Written apart after fresh127 and fresh128 were read, while guard 65 was being made.
FRESH133 = "fresh133"
FRESH134 = "fresh134"
# Written apart after fresh129 and fresh130 were read, while guard 66 was being made.
FRESH135 = "fresh135"
FRESH136 = "fresh136"
# Written apart after fresh131 and fresh132 were read, while guard 67 was being made.
FRESH137 = "fresh137"
FRESH138 = "fresh138"
# Written apart after fresh133 and fresh134 were read, while guard 68 was being made.
FRESH139 = "fresh139"
FRESH140 = "fresh140"
# The groups written apart on seven new subjects each (issue 33), in the order they were written.
WRITTEN_APART = (FRESH3, FRESH4, FRESH5, FRESH6, FRESH7, FRESH8, FRESH9, FRESH10, FRESH11, FRESH12, FRESH13, FRESH14, FRESH15, FRESH16, FRESH17, FRESH18, FRESH19, FRESH20, FRESH21, FRESH22, FRESH23, FRESH24, FRESH25, FRESH26, FRESH27, FRESH28, FRESH29, FRESH30, FRESH31, FRESH32, FRESH33, FRESH34, FRESH35, FRESH36, FRESH37, FRESH38, FRESH39, FRESH40, FRESH41, FRESH42, FRESH43, FRESH44, FRESH45, FRESH46, FRESH47, FRESH48, FRESH49, FRESH50, FRESH51, FRESH52, FRESH53, FRESH54, FRESH55, FRESH56, FRESH57, FRESH58, FRESH59, FRESH60, FRESH61, FRESH62, FRESH63, FRESH64, FRESH65, FRESH66, FRESH67, FRESH68, FRESH69, FRESH70, FRESH71, FRESH72, FRESH73, FRESH74, FRESH75, FRESH76, FRESH77, FRESH78, FRESH79, FRESH80, FRESH81, FRESH82, FRESH83, FRESH84, FRESH85, FRESH86, FRESH87, FRESH88, FRESH89, FRESH90, FRESH91, FRESH92, FRESH93, FRESH94, FRESH95, FRESH96, FRESH97, FRESH98, FRESH99, FRESH100, FRESH101, FRESH102, FRESH103, FRESH104, FRESH105, FRESH106, FRESH107, FRESH108, FRESH109, FRESH110, FRESH111, FRESH112, FRESH113, FRESH114, FRESH115, FRESH116, FRESH117, FRESH118, FRESH119, FRESH120, FRESH121, FRESH122, FRESH123, FRESH124, FRESH125, FRESH126, FRESH127, FRESH128, FRESH129, FRESH130, FRESH131, FRESH132, FRESH133, FRESH134, FRESH135, FRESH136, FRESH137, FRESH138, FRESH139, FRESH140)
GROUPS = (*HALVES, FRESH, FRESH2, *WRITTEN_APART)
# The kinds only the judge's check can see: an answer described without being named (a synonym,
# a famous property of it). The rules and the semantic layer catch some, but no installable
# model knows enough to be relied on for them (issues 24 and 33); every other kind is in the
# scope of the rules and the semantic layer. ``listed`` (the answer named among a few
# candidates) is in scope: the answer's own text is there to be read.
JUDGE_ONLY_KINDS = frozenset({"described"})
# Issue 33's batches: subjects the rules were not written on (a, c, d, e, h, i, j, k, l, m, n, o, p, q, r, s, u, v, w, x, y and z batches).
NEW_DOMAIN_BATCH = re.compile(r"^[acdehijklmnopqrsuvwxyz]\d\d$")


@dataclass(frozen=True)
class Suggestion:
    text: str
    batch: str
    question: str | None  # the question it was written about (None: the batch as a whole)
    kind: str | None  # the kind of leak it was written as; None for a clean suggestion
    half: str  # "development" | "held_out" | "fresh" | "fresh2" | "fresh3" | "fresh4" | "fresh5" | "fresh6" | "fresh7" | "fresh8" | "fresh9" | "fresh10" | "fresh11" | "fresh12" | "fresh13" | "fresh14" | "fresh15" | "fresh16" | "fresh17" | "fresh18" | "fresh19" | "fresh20" | "fresh21" | "fresh22"
    # the subject of its question, or of its batch's first question when question is None
    domain: str = ""

    @property
    def leaks(self) -> bool:
        return self.kind is not None

    @property
    def in_scope(self) -> bool:
        """A leak the rules and the semantic layer are answerable for (see JUDGE_ONLY_KINDS)."""
        return self.kind is not None and self.kind not in JUDGE_ONLY_KINDS

    @property
    def new_domain(self) -> bool:
        """Written for issue 33, in a subject the rules were not written on."""
        return NEW_DOMAIN_BATCH.match(self.batch) is not None


@dataclass(frozen=True)
class Corpus:
    split: dict
    batches: dict[str, list[Question]]  # batch id → its questions, in order
    suggestions: list[Suggestion]

    def half(self, name: str) -> list[Suggestion]:
        return [s for s in self.suggestions if s.half == name]

    def questions(self, half: str | None = None) -> list[Question]:
        names = self.split[half] if half else list(self.batches)
        return [q for b in names for q in self.batches[b]]


@dataclass(frozen=True)
class Message:
    """A judge's whole feedback on one batch, written by hand: clean (``kind`` None) or with
    one leaking sentence about ``question``, labelled as the corpus labels suggestions."""

    text: str
    batch: str
    question: str | None
    kind: str | None
    group: str  # the batch's group in the corpus

    @property
    def in_scope(self) -> bool:
        return self.kind is not None and self.kind not in JUDGE_ONLY_KINDS


class MessagesError(ValueError):
    """A line of the messages file that cannot be read, named by file and line."""


def load_messages(path: Path = MESSAGES, corpus: Corpus | None = None) -> list[Message]:
    """The hand-written messages of ``path``; each batch and question must be the corpus'."""
    corpus = corpus or load_corpus()
    group_of = {b: g for g in GROUPS for b in corpus.split.get(g, [])}
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            text, batch, kind, question = d["message"], d["batch"], d["leak"], d.get("question")
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise MessagesError(f"{path}:{n}: not a message line ({type(e).__name__}: {e})") from None
        if batch not in group_of:
            raise MessagesError(f"{path}:{n}: batch {batch!r} is not in the corpus")
        if question is not None and question not in {q.id for q in corpus.batches[batch]}:
            raise MessagesError(f"{path}:{n}: question {question!r} is not in batch {batch!r}")
        out.append(Message(text, batch, question, kind, group_of[batch]))
    return out


@cache
def load_corpus(path: Path = CORPUS) -> Corpus:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    split = lines[0]["split"]
    half_of = {b: half for half in GROUPS for b in split.get(half, [])}
    batches: dict[str, list[Question]] = {}
    question_subject: dict[str, str] = {}
    batch_subject: dict[str, str] = {}  # the subject of the batch's first question
    for d in lines[1:]:
        if "suggestion" not in d:
            batches.setdefault(d["batch"], []).append(Question(d["question"], d["text"], d["answer"], d.get("options")))
            question_subject[d["question"]] = d["subject"]
            batch_subject.setdefault(d["batch"], d["subject"])
    suggestions = [
        Suggestion(
            d["suggestion"],
            d["batch"],
            d["question"],
            d["leak"],
            half_of[d["batch"]],
            domain=question_subject[d["question"]] if d["question"] else batch_subject[d["batch"]],
        )
        for d in lines[1:]
        if "suggestion" in d
    ]
    return Corpus(split, batches, suggestions)


@dataclass(frozen=True)
class GuardRun:
    """The verdicts of :func:`guard_verdicts` on every check, and the run embedder the checks
    at ``taken`` were taken with (its fp32 companion holds their texts' vectors)."""

    embedder: Any
    verdicts: list[list]
    # The indexes of the checks taken in this process (the others are stored ones).
    taken: list[int]


def guard_checks() -> list[tuple[str, str]]:
    """(text, batch) of every check :func:`guard_verdicts` runs, in its order: every suggestion
    of the corpus against its batch (in the corpus' order), then every content-free sentence
    against every batch."""
    from judgeagent.stages.controls import PLACEBO_SENTENCES

    corpus = load_corpus()
    return [(s.text, s.batch) for s in corpus.suggestions] + [(p, b) for p in PLACEBO_SENTENCES for b in corpus.batches]


def guard_texts_of(indexes: list[int]) -> list[str]:
    """Every distinct text the checks at ``indexes`` embed, in a fixed order."""
    from judgeagent.stages.leakage import guard_texts

    corpus, checks = load_corpus(), guard_checks()
    return list(dict.fromkeys(t for i in indexes for t in guard_texts(checks[i][0], corpus.batches[checks[i][1]])))


def guard_verdicts(embedder, only: list[int] | None = None) -> list[list]:
    """[text, batch, sorted (question, kind) findings, margin] of the guard with ``embedder``
    for each check of :func:`guard_checks` (or those at the indexes ``only``): what must not
    depend on the CPU or the embedder's precision, and how near a threshold each came
    (:mod:`judgeagent.stages.leak_margins`)."""
    from judgeagent.graph.fixed_precision import decision_embedder
    from judgeagent.stages import leak_margins
    from judgeagent.stages.leakage import find_leaks

    corpus, checks = load_corpus(), guard_checks()
    indexes = list(range(len(checks))) if only is None else only
    # One pass over every text first, as a run primes its guard; each check then reads the cache.
    decision_embedder(embedder).encode(guard_texts_of(indexes))
    out = []
    for i in indexes:
        text, batch = checks[i]
        with leak_margins.recording() as margin:
            found = find_leaks(text, corpus.batches[batch], embedder=embedder)
        out.append([text, batch, sorted([d.question_id or "", d.kind] for d in found), margin[0]])
    return out

