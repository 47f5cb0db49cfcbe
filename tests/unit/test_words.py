"""Word rules shared by the engine, the evaluator and the server."""

from nextword.engine.words import is_candidate, is_word, split_prefix, starts_sentence


def test_split_prefix_takes_the_partial_last_word():
    assert split_prefix("Hello wor") == ("Hello ", "wor")
    assert split_prefix("Hello ") == ("Hello ", "")
    assert split_prefix("") == ("", "")
    assert split_prefix("self.my_var") == ("self.", "my_var")
    assert split_prefix("don't") == ("", "don't")
    assert split_prefix("O'Bri") == ("", "O'Bri")


def test_split_prefix_leaves_an_opening_quote_in_the_context():
    # No lexicon word starts with an apostrophe: after one, the word typed is "hel".
    assert split_prefix("He said 'hel") == ("He said '", "hel")
    assert split_prefix("He said '") == ("He said '", "")
    assert split_prefix("rock ''n") == ("rock ''", "n")


def test_split_prefix_handles_cjk_and_emoji_without_breaking_characters():
    context, prefix = split_prefix("今天天气真")
    assert context + prefix == "今天天气真"
    assert split_prefix("hi 😀") == ("hi 😀", "")


def test_candidates_start_and_end_with_word_characters():
    assert is_candidate("the") and is_candidate("my_var") and is_candidate("don't")
    assert not is_candidate("'") and not is_candidate("'hello") and not is_candidate("first'")
    assert is_word("abc") and not is_word("a b") and not is_word("")


def test_sentence_starts():
    assert starts_sentence("")
    assert starts_sentence("It ended. ")
    assert starts_sentence('"Really?" ')
    assert not starts_sentence("the cat ")
