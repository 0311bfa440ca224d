"""Function words: the closed classes of English (determiners, pronouns, prepositions, auxiliaries,
verbs of fetching, courtesy) that say how a request is put and never name the thing it asks for."""
from __future__ import annotations

STOPWORDS = {
    "a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "some", "any", "this", "that", "these",
    "those", "of", "to", "for", "me", "us", "you", "i", "we", "it", "is", "are", "was", "were", "be", "been", "am",
    "please", "can", "could", "would", "will", "do", "did", "does", "have", "has", "had", "and", "or", "but", "so",
    "if", "then", "now", "just", "with", "on", "in", "at", "by", "from", "up", "out", "over", "here", "there",
    "what", "where", "when", "which", "who", "how", "one", "ones", "other", "another", "not", "no", "yes", "get",
    "bring", "fetch", "grab", "find", "give", "take", "need", "want", "like", "look", "see", "saw",
    "seen", "last", "again", "too", "also", "very", "thanks", "thank", "ok", "okay", "hey", "oh", "um", "er",
    "into", "onto", "inside", "near", "next", "beside", "under", "off", "about", "around", "let", "lets", "go",
    "put", "left", "leave", "keep", "kept", "usually", "normally", "always", "often", "where's", "what's", "it's",
    "that's", "i'm", "i'd", "you're", "you'll", "you've", "you'd", "i'll", "we'll", "we're", "they're", "don't", "isn't", "was", "all", "there's", "should", "might", "must", "may",
    "shall", "sure", "well", "really", "maybe", "actually", "kindly", "quickly", "somewhere", "anywhere", "time",
    "someone", "somebody", "anyone", "anybody", "everyone", "something", "anything", "thing", "things", "stuff",
    "whenever", "unless", "while", "once", "as", "tell", "know", "remind", "away", "aside", "many", "much", "only", "sorry",
    "whatever", "whichever", "wherever", "whoever", "however", "them", "they", "he", "she", "him", "itself", "themselves", "myself", "yourself", "yours", "ours", "theirs", "hers",
    # ("hand" and "pass" are verbs of fetching and nouns of things alike: "hand me the hand cream")
}

# The rest of the closed classes, which the lexical database (of content words) does not list either:
# words of the language, never slips of the function words above ("than" is no "thank").
CLOSED_CLASS = frozenset({
    "than", "although", "because", "whether", "until", "upon", "without", "towards", "toward", "among", "amongst",
    "via", "per", "whose", "whom", "whomever", "nor", "unto", "whilst", "amid", "versus", "against", "during",
    "since", "whereas", "wherein", "whereby",
})
