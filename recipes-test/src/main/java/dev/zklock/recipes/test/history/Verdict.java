package dev.zklock.recipes.test.history;

/** A checker's answer for one key. */
public enum Verdict {
    /** The history is consistent with the model. */
    VALID,
    /** No order of the operations fits the model: the lock broke. */
    INVALID,
    /** The search hit its bound before an answer: neither valid nor invalid. */
    UNKNOWN
}
