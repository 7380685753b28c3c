package dev.zklock.recipes.locks.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The client's newest node per lock path, and the proof of the node right before ours; no ZooKeeper. */
final class QueueTailsTest {
    private static final String PATH = "/locks/a";
    private static final long SESSION = 0x10L;

    private final QueueTails tails = new QueueTails();

    @Test
    void created_rightAfterANodeOfOurs_namesIt() {
        assertThat(tails.sending(PATH, SESSION, prefix("a"))).isNull();
        assertThat(tails.sending(PATH, SESSION, prefix("b"))).isEqualTo(prefix("a"));

        assertThat(answer("a", 7)).isNull();
        assertThat(answer("b", 8)).isEqualTo(prefix("a") + "0000000007");
    }

    @Test
    void created_withANodeOfAnotherClientBetween_namesNone() {
        made("a", 7);

        assertThat(made("b", 9)).isNull();
    }

    @Test
    void created_afterOurNodeRightBeforeWasDeleted_namesNone() {
        made("a", 7);
        tails.sending(PATH, SESSION, prefix("b"));
        tails.deleting(PATH, prefix("a") + "0000000007");

        assertThat(answer("b", 8)).isNull();
    }

    /** A runner may take our node from the listing and delete it before its create's reply is read here. */
    @Test
    void created_ofANodeDeletedBeforeItsReplyWasRead_isNeverNamed() {
        tails.sending(PATH, SESSION, prefix("a"));
        tails.deleting(PATH, prefix("a") + "0000000007");
        answer("a", 7);

        assertThat(tails.sending(PATH, SESSION, prefix("b"))).isNull(); // nothing of ours is on its way or stands
        assertThat(answer("b", 8)).isNull();
    }

    @Test
    void created_onAnotherSession_namesNone() {
        made("a", 7);

        assertThat(tails.sending(PATH, SESSION + 1, prefix("b"))).isNull();
        assertThat(tails.created(PATH, SESSION + 1, prefix("b"), prefix("b") + "0000000008"))
                .isNull();
    }

    @Test
    void created_afterTheSequenceWrappedBelowZero_namesNone() {
        made("a", Integer.MAX_VALUE);
        tails.sending(PATH, SESSION, prefix("b"));

        assertThat(tails.created(PATH, SESSION, prefix("b"), prefix("b") + Integer.MIN_VALUE))
                .isNull();
    }

    @Test
    void deleting_everyNodeAndReply_leavesNoEntry() {
        tails.sending(PATH, SESSION, prefix("a"));
        tails.sending(PATH, SESSION, prefix("b"));
        answer("a", 7);
        tails.created(PATH, SESSION, prefix("b"), null); // failed
        tails.deleting(PATH, prefix("a") + "0000000007");

        assertThat(tails.size()).isZero();
    }

    private static String prefix(String id) {
        return "_c_" + id + "-lock-";
    }

    /** Sends a create and reads its reply at once; returns the node of ours named right before it. */
    private String made(String id, int sequence) {
        tails.sending(PATH, SESSION, prefix(id));
        return answer(id, sequence);
    }

    /** Reads the reply of the create sent with {@code id}: its node made with {@code sequence}. */
    private String answer(String id, int sequence) {
        return tails.created(PATH, SESSION, prefix(id), prefix(id) + String.format("%010d", sequence));
    }
}
