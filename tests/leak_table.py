"""A table of suggestions for three invented MedQA-style questions: which leak, and how.

Written for this project (no benchmark text). Each leaking row names the kind of give-away
it was written as; several rows are more than one kind at once, and two describe the answer
without naming it, which no rule can see (the judge's leak check is there for those).
Clean rows name concepts and reasoning steps; some of them are written to tempt the rules:
letters inside names ("hepatitis B"), cue words without an option ("Avoid answering
before..."), questions referred to without an option, and distractors named neutrally.

Used by tests/test_leakage.py and bench/leak_guard.py.
"""

from __future__ import annotations

from judgeagent.data.benchmark import Question

QUESTIONS = [
    Question(
        "t1",
        "A 58-year-old man with atrial fibrillation has had a mechanical mitral valve replacement. "
        "Which drug is most appropriate for long-term prevention of thromboembolism?",
        "C",
        {"A": "Aspirin", "B": "Heparin", "C": "Warfarin", "D": "Dabigatran", "E": "Clopidogrel"},
    ),
    Question(
        "t2",
        "A 7-year-old boy has fever, a sore throat, a strawberry tongue and a rough, sandpaper-like rash "
        "that began on the neck and spread to the trunk. Which organism is the most likely cause?",
        "A",
        {
            "A": "Streptococcus pyogenes",
            "B": "Staphylococcus aureus",
            "C": "Measles virus",
            "D": "Parvovirus B19",
            "E": "Epstein-Barr virus",
        },
    ),
    Question(
        "t3",
        "A 45-year-old woman has fatigue, cold intolerance, constipation and weight gain. Her TSH is "
        "raised and her free T4 is low. Which treatment is most appropriate?",
        "B",
        {"A": "Propylthiouracil", "B": "Levothyroxine", "C": "Radioactive iodine", "D": "Methimazole", "E": "Thyroidectomy"},
    ),
]

# (suggestion, the kind of leak it was written as)
LEAKING: list[tuple[str, str]] = [
    # eliminations by text
    ("Rule out heparin and aspirin.", "elimination"),
    ("Measles virus can be excluded here, since there is no cough or conjunctivitis.", "elimination"),
    ("For the rash question, parvovirus B19 is unlikely.", "elimination"),
    ("Dabigatran does not belong with a mechanical valve, so drop it.", "elimination"),
    ("Cross out propylthiouracil and methimazole; they treat the opposite problem.", "elimination"),
    ("Don't pick clopidogrel.", "elimination"),
    ("Staphylococcus aureus is a distractor in the second question.", "elimination"),
    ("Radioactive iodine is the wrong choice for this woman.", "elimination"),
    ("Thyroidectomy is not indicated here.", "elimination"),
    ("Epstein-Barr virus would not explain the sandpaper rash, so set it aside.", "elimination"),
    ("Steer clear of aspirin for the valve patient.", "elimination"),
    ("Neither heparin nor clopidogrel is the answer for Q1.", "elimination"),
    # eliminations by letter or position
    ("Avoid B and A on Q1.", "elimination"),
    ("Eliminate D and E in the thyroid question before anything else.", "elimination"),
    ("In question 3, choices A and D can be discarded.", "elimination"),
    ("Options C and D are out for the second question.", "elimination"),
    ("Ignore option E on the rash question.", "elimination"),
    ("The last option in question 3 is too aggressive.", "elimination"),
    ("Your answer to question 1 was wrong; option B is not correct.", "elimination"),
    # disclosure of right and wrong seed answers
    ("Your answer to question 1 was wrong.", "disclosure"),
    ("You got Q2 right; keep it.", "disclosure"),
    ("You answered the thyroid question correctly.", "disclosure"),
    ("Question 3 was answered incorrectly, so revisit it.", "disclosure"),
    ("Only your second answer was correct.", "disclosure"),
    ("You missed the first question.", "disclosure"),
    ("Keep your answer to question 2, and change the other two.", "disclosure"),
    ("Your choice on Q3 was a mistake.", "disclosure"),
    ("You were right about the rash question but wrong about the valve question.", "disclosure"),
    # per-question pointers
    ("For question 1, option C is the safe choice.", "pointer"),
    ("On Q2, lean towards A.", "pointer"),
    ("In the third question, consider option B first.", "pointer"),
    ("Go with the first option on Q2.", "pointer"),
    ("Between B and C on question 1, C fits better.", "pointer"),
    ("Q1 → C; Q2 → A.", "pointer"),
    ("In question 2, recall what parvovirus B19 does to the cheeks.", "pointer"),
    # the answer itself, which the old guard already caught
    ("For the valve patient, warfarin is the one to use.", "answer"),
    ("Levothyroxine replacement is what the third patient needs.", "answer"),
    ("The answer to question 3 is B.", "answer"),
    # the answer described, not named: beyond any rule
    ("The right drug here is the vitamin K antagonist that is monitored with the INR.", "described"),
    ("The organism to name is the beta-haemolytic coccus whose toxin causes the rash and the red tongue.", "described"),
]

CLEAN: list[str] = [
    "Recall which anticoagulants are approved for patients with mechanical heart valves, and why.",
    "Review how the clotting cascade depends on vitamin K and which tests monitor it.",
    "For question 1, think about what a mechanical valve changes in the choice of long-term therapy.",
    "In question 2, link the timing and the texture of the rash to its cause.",
    "For the third question, interpret the TSH and the free T4 together before choosing a treatment.",
    "Avoid answering before you have matched each symptom to a mechanism.",
    "Rule out nothing until you have read the whole vignette.",
    "Check your answer against the patient's age and the key laboratory values.",
    "Make sure your answer is consistent with the pathophysiology.",
    "It is not correct to rely on a single symptom; weigh the whole picture.",
    "Distinguish primary from secondary hypothyroidism using the pattern of TSH and T4.",
    "Remember that the drug choice after valve replacement depends on the valve type, not only on the rhythm.",
    "Consider which childhood rashes start on the face and which start on the trunk.",
    "Think of the incubation period and the prodrome typical of each childhood exanthem.",
    "Relate the mechanism of each drug class to the problem the patient actually has.",
    "Be careful with questions that ask for the most appropriate treatment rather than the mechanism.",
    "Pay attention to which vital signs and laboratory values are abnormal in each vignette.",
    "The second question depends on recognising the rash's texture and distribution.",
    "Your reasoning should move from the symptoms to the mechanism and only then to the cause.",
    "Revisit how the thyroid axis feeds back on the pituitary.",
    "Use the patient's age as a clue to the likely infections in question 2.",
    "Option letters aside, explain to yourself why each choice would or would not fit.",
    "List the contraindications you know for each class of anticoagulant.",
    "It is unlikely that a single laboratory value settles a diagnosis; combine them.",
    "Exclude diagnoses only when a finding clearly contradicts them.",
    "Compare how heparin and clopidogrel act on clotting.",
    "Recall what parvovirus B19 typically does to the cheeks.",
    "The first question tests long-term therapy, the second an infection, and the third an endocrine treatment.",
    "Hepatitis B and hepatitis C do not cause this kind of rash, so think about the toxin-mediated ones.",
    "State to yourself why you reject a choice before you reject it.",
    "Don't pick an answer just because it is the most familiar drug name.",
    "Question 1 is about prevention over years, not about acute treatment.",
    "A careful reading of each stem comes first; group A and group B patterns of illness are worth revising.",
    "Review the cell types involved: B cells and T cells play different roles in these infections.",
]
