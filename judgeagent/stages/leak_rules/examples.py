"""The batches the rules' examples are read against: invented general-knowledge questions
(no benchmark text), one batch per shape of answer."""

from __future__ import annotations

from judgeagent.data.benchmark import Question

BATCHES: dict[str, list[Question]] = {
    # multiple choice, four or five options, letters A to E
    "mc": [
        Question(
            "m1",
            "Which treaty ended the Thirty Years' War in 1648?",
            "B",
            {"A": "Treaty of Utrecht", "B": "Peace of Westphalia", "C": "Treaty of Versailles", "D": "Congress of Vienna"},
        ),
        Question(
            "m2",
            "Which organelle carries its own DNA?",
            "C",
            {"A": "Ribosome", "B": "Golgi apparatus", "C": "Mitochondrion", "D": "Lysosome", "E": "Centriole"},
        ),
        Question(
            "m3",
            "Which gas makes up most of the air we breathe?",
            "A",
            {"A": "Nitrogen", "B": "Oxygen", "C": "Argon", "D": "Carbon dioxide"},
        ),
    ],
    # answers without options
    "phrase": [
        Question("p1", "Who wrote the novel Emma?", "Jane Austen"),
        Question("p2", "Which layer of the Earth lies directly below the crust?", "mantle"),
        Question("p3", "In which year did the Berlin Wall fall?", "1989"),
        Question("p4", "What is the deepest known point of the Earth's oceans called?", "Challenger Deep"),
        Question("p5", "How long does sunlight take to reach the Earth, to the nearest minute?", "8 minutes"),
        Question("p6", "What is the worldwide rise in average temperature driven by greenhouse gases called?", "global warming"),
        Question("p7", "How long does a football match last without stoppages?", "1 hour 30 minutes"),
        Question("p8", "A climber hangs on the working line. What is the second, backup line called?", "Safety line"),
    ],
    # answers written in another form: initials, or a second form in brackets
    "forms": [
        Question("f1", "Which inherited heart muscle disease is the commonest cause of sudden death in young athletes?", "hypertrophic cardiomyopathy"),
        Question("f2", "What is the heat a heat pump delivers over a whole season, divided by the electricity it used, called?",
                 "seasonal performance factor (SPF)"),
        Question("f3", "Which central bank sets interest rates in the United Kingdom?", "A",
                 {"A": "Bank of England", "B": "European Central Bank", "C": "Federal Reserve System", "D": "Bank of Japan"}),
        Question("f4", "Which UK law of 1990 makes unauthorised access to a computer an offence?", "Computer Misuse Act (c. 18)"),
    ],
    # a craft and a run: one question's options named in another's answer, a pace, a temperature
    "craft": [
        Question("c1", "On a hand loom, which part carries the weft thread from one side of the warp to the other?", "C",
                 {"A": "Reed", "B": "Heddle", "C": "Shuttle", "D": "Treadle"}),
        Question("c2", "What is the weaver's pressing of the foot pedals in a set order, to lift the harnesses, called?", "treadling"),
        Question("c3", "A runner wants to finish 10 km in 50 minutes at an even pace. Which pace is that?", "B",
                 {"A": "4:30 per km", "B": "5:00 per km", "C": "5:30 per km", "D": "6:00 per km"}),
        Question("c4", "At what temperature does water boil at sea level? Give it in °C.", "about 100 °C (at standard pressure)"),
    ],
    # a phrase answer told from its kind by a number, and one that is a single hyphenated term
    "terms": [
        Question("t1", "Which platform does the night train to the coast leave from?", "Platform 4"),
        Question("t2", "What do cave divers call the sudden loss of visibility when fine sediment is stirred up?", "silt-out"),
    ],
    # answers a trade writes as one word, by initials before a hyphen, as a pair of numbers, as a place
    "trades": [
        Question("r1", "What do roofers call the overlap between two neighbouring slates of one course?", "side lap"),
        Question("r2", "What is the routine electrical-safety check of plug-in equipment called?", "portable appliance test"),
        Question("r3", "Which rule gives a pool guard 10 seconds to spot a swimmer in trouble and 20 to reach them?", "10/20 rule"),
        Question("r4", "Which slide position of a trombone is the longest reach?", "seventh position"),
        Question("r5", "What do players call the self-refereeing principle of a disc sport?", "Spirit of the Game"),
        Question("r6", "Which switch shuts a boiler's burner down when its water falls too low?", "low-water cut-off switch"),
    ],
    # prices, and grades written as short codes
    "fares": [
        Question("e1", "What does a day pass on the town's buses cost?", "B", {"A": "£3.50", "B": "£4.20", "C": "£5.00", "D": "£6.80"}),
        Question("e2", "Which climbing grade is the boulder problem given in the guidebook?", "C", {"A": "5", "B": "6A", "C": "6B+", "D": "7A+"}),
    ],
    # options written by initials, ranges among ranges, a relation written with numbers
    "codes": [
        Question("k1", "Which scan forms its image with a magnetic field and radio waves, without ionising radiation?", "B",
                 {"A": "Computed tomography", "B": "Magnetic resonance imaging", "C": "Positron emission tomography", "D": "Plain radiograph"}),
        Question("k2", "Which soil pH range suits blueberries best?", "A",
                 {"A": "pH 4.5–5.5", "B": "pH 6.0–7.0", "C": "pH 7.0–8.0", "D": "pH 8.0–9.0"}),
        Question("k3", "How is your grandparent's first cousin related to you?", "C",
                 {"A": "Second cousin", "B": "First cousin once removed", "C": "First cousin twice removed", "D": "Third cousin"}),
    ],
    # options that give their own short form in brackets, times of day, durations in one unit,
    # and a phrase answer whose word is written in parts
    "rulings": [
        Question("u1", "What does an official record when a steeplechaser runs round the water jump instead of over it?", "B",
                 {"A": "A yellow card (YC) warning", "B": "Disqualification (DQ)", "C": "Did not finish (DNF)", "D": "No action"}),
        Question("u2", "A museum shuts at 5:00 pm and the last entry is half an hour earlier. When is the last entry?", "B",
                 {"A": "4:00 pm", "B": "4:30 pm", "C": "3:30 pm", "D": "5:30 pm"}),
        Question("u3", "How long is one Morse dot at 20 words per minute?", "C", {"A": "40 ms", "B": "50 ms", "C": "60 ms", "D": "120 ms"}),
        Question("u4", "What are a javelin thrower's sideways steps before the throw usually called?", "crossover steps"),
    ],
    # a phrase answer whose words stand in another question's option
    "gear": [
        Question("g1", "What is the small parachute that pulls a skydiver's main canopy out of its container called?", "pilot chute"),
        Question("g2", "What does the slider of a ram-air parachute do?", "C",
                 {"A": "It steers the canopy", "B": "It holds the pilot chute in its pouch", "C": "It slows the canopy's opening",
                  "D": "It releases the reserve"}),
    ],
    # options that are numbers (one written "About 8 stakes"), and options that are statements
    "values": [
        Question("v1", "How many bits long is an IPv6 address?", "D", {"A": "32", "B": "48", "C": "64", "D": "128"}),
        Question(
            "v2",
            "Why does a sea breeze blow onshore on a sunny afternoon?",
            "A",
            {
                "A": "The land warms faster than the sea, so air rises over the land",
                "B": "The sea warms faster than the land during the day",
                "C": "The tide pushes surface air towards the coast",
                "D": "The rotation of the Earth turns every wind towards the shore",
            },
        ),
        Question("v3", "What is the pH of pure water at 25 °C?", "B", {"A": "1", "B": "7", "C": "11", "D": "14"}),
        Question("v4", "Roughly how many stakes does a round basket base of 20 cm need, spaced 3 cm apart?", "D",
                 {"A": "About 7 stakes", "B": "About 11 stakes", "C": "About 16 stakes", "D": "About 21 stakes", "E": "About 30 stakes"}),
    ],
    # options named by a short form of their own in brackets, with a hyphen
    "spoken": [
        Question("o1", "How does a game of chess end when neither player can win?", "draw"),
        Question("o2", "Where at a station do visitors ask for maps and local advice?", "tourist information"),
        Question("o3", "Which kitchen tool crushes boiled potatoes smooth?", "potato masher"),
        Question("o4", "Under the new market rules, how are the corner stalls given out?", "by a weekly draw"),
    ],
    "labels": [
        Question("l1", "What is each player's piece count at the start of a game of draughts?", "B", {"A": "10", "B": "12", "C": "15", "D": "20"}),
        Question("l2", "Which aid do draughts players use to see who is ahead in material?", "A",
                 {"A": "Piece count", "B": "Opening book", "C": "Endgame table", "D": "Move clock"}),
    ],
    # phrase answers known by a short form: initials with a count, a contraction
    "shortened": [
        Question("n1", "In a puzzle-cube method, what is the stage that builds the bottom and middle layers together called?", "first two layers"),
        Question("n2", "What is singing along to recorded backing tracks called, by its Japanese name?", "karaoke"),
    ],
    "scores": [
        Question("s1", "Which of a judged sport's panel scores counts how hard the routine is?", "B",
                 {"A": "Execution score (E-score)", "B": "Difficulty score (D-score)", "C": "Neutral deduction", "D": "Bonus for landing"}),
    ],
    # a notice to read, whose answer's words are all in it
    "notice": [
        Question(
            "t1",
            "Read the notice and answer the question. NOTICE TO ALL WALKERS. This year the autumn lantern walk starts from a new "
            "place. Because the bridge on Mill Lane is closed for repairs, walkers will not gather on the village green as in past "
            "years. Instead, please meet in the yard of the Old Tannery on Brook Street from half past six. Stewards in yellow "
            "jackets will hand out lanterns there, and the walk will leave at seven sharp. Parking at the green is still open. "
            "Where should walkers meet this year?",
            "the Old Tannery",
        ),
    ],
    # statements named by a run of their everyday words ("the field survey")
    "designs": [
        Question("d1", "A club claims its members can find buried coins by feel. Which test best rules out both chance and cues from the tester?", "A",
                 {"A": "A double-blind randomised trial with hidden coins", "B": "An open field survey in which members choose where to dig",
                  "C": "A case series of coins the members found", "D": "A single-blind demonstration in front of an audience"}),
    ],
    # an option whose opening words are all little ones ("as much as they like")
    "allowance": [
        Question("w1", "How much fruit may one picker take home from a session?", "B",
                 {"A": "2 kg", "B": "4 kg", "C": "8 kg", "D": "As much as they like, provided the extra is logged."}),
    ],
    # a share whose fraction is two of the stem's figures
    "shares": [
        Question("h1", "Of 400 seedlings planted in spring, 30 came through the frost. What share came through?", "B",
                 {"A": "3%", "B": "7.5%", "C": "13.3%", "D": "30%"}),
    ],
    # one question's option written inside another's ("tenpin bowling")
    "pins": [
        Question("k1", "How are the nine pins of a skittle alley set out?", "C",
                 {"A": "In a triangle, as in tenpin bowling", "B": "In a single row", "C": "In a diamond", "D": "In a circle"}),
        Question("k2", "Which game grew out of ninepins when ninepins was banned?", "D",
                 {"A": "Candlepin bowling", "B": "Duckpin bowling", "C": "Five-pin bowling", "D": "Tenpin bowling"}),
    ],
    # an option that is a figure the stem gives, statements told apart by their numbers, signed
    # values, times of day, and grades named by common words
    "figures": [
        Question("x1", "A rule of thumb puts a cloud's base 125 m higher for every degree of spread. How high is the base at a spread of 8 degrees?",
                 "B", {"A": "125 m", "B": "1,000 m", "C": "2,000 m", "D": "3,000 m"}),
        Question("x2", "A hearth lies between two layers dated 12.4 and 13.1 thousand years old. What can be said of its age?", "A",
                 {"A": "It is between 12.4 and 13.1 thousand years old.", "B": "It is older than 13.1 thousand years.",
                  "C": "It is exactly 12.8 thousand years old.", "D": "It is younger than 12.4 thousand years."}),
        Question("x3", "In a court game, what does a disc resting in the separate area at the base of the scoring triangle score?", "E",
                 {"A": "+10 points", "B": "+5 points", "C": "0 points", "D": "−5 points", "E": "−10 points"}),
        Question("x4", "When does the lantern walk set off this year?", "B", {"A": "6:30 pm", "B": "7:15 pm", "C": "8:15 pm", "D": "8:45 pm"}),
        Question("x5", "Which grade suits a worn coin whose date and lettering can still be read?", "A",
                 {"A": "Good", "B": "Extremely Fine", "C": "Mint State", "D": "Proof"}),
        Question("x6", "How much dye powder do 2½ cups of dye need at 2 teaspoons per cup?", "D",
                 {"A": "2½ teaspoons", "B": "4 teaspoons", "C": "4½ teaspoons", "D": "5 teaspoons"}),
        Question("x7", "In which unit is a dance track's tempo given?", "C",
                 {"A": "Decibels", "B": "Revolutions per minute", "C": "Beats per minute", "D": "Frames per second"}),
        Question("x8", "Which dance rhythm steps once on every beat, hips swaying?", "merengue"),
    ],
}
