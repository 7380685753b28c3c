package dev.zklock.recipes.locks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The arithmetic of a fencing token: no ZooKeeper. */
final class FencingTokenTest {
    private static final long EPOCH_BOUND = 1L << 15; // the first leader epoch whose zxids no longer fit
    private static final int LAST_PASS = FencingToken.PASSES_PER_NODE - 1;

    @Test
    void of_passesOfOneNodeThenALaterNode_growEveryTime() {
        long czxid = zxid(3, 1_000);

        long firstOfNode = FencingToken.of(czxid, 0);
        long lastOfNode = FencingToken.of(czxid, LAST_PASS);
        long nextNode = FencingToken.of(czxid + 1, 0);

        assertThat(FencingToken.of(czxid, 1)).isGreaterThan(firstOfNode);
        assertThat(lastOfNode).isGreaterThan(FencingToken.of(czxid, LAST_PASS - 1));
        assertThat(nextNode).isGreaterThan(lastOfNode);
        assertThat(FencingToken.of(zxid(4, 1), 0)).isGreaterThan(FencingToken.of(zxid(3, 0xFFFF_FFFFL), LAST_PASS));
    }

    @Test
    void creationZxidAndPass_ofAToken_giveBackWhatItWasMadeOf() {
        long czxid = zxid(EPOCH_BOUND - 1, 0xFFFF_FFFFL);

        long token = FencingToken.of(czxid, LAST_PASS);

        assertThat(FencingToken.creationZxid(token)).isEqualTo(czxid);
        assertThat(FencingToken.pass(token)).isEqualTo(LAST_PASS);
    }

    @Test
    void of_theLastEpochBelowTheBound_fitsAndTheBoundDoesNot() {
        assertThat(FencingToken.of(zxid(EPOCH_BOUND - 1, 0xFFFF_FFFFL), LAST_PASS))
                .isPositive();

        long beyond = zxid(EPOCH_BOUND, 0);
        assertThatThrownBy(() -> FencingToken.of(beyond, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Long.toHexString(beyond));
    }

    @Test
    void of_aPassOutOfRange_throwsNamingIt() {
        assertThatThrownBy(() -> FencingToken.of(zxid(1, 1), FencingToken.PASSES_PER_NODE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pass " + FencingToken.PASSES_PER_NODE);
        assertThatThrownBy(() -> FencingToken.of(zxid(1, 1), -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pass -1");
    }

    private static long zxid(long epoch, long counter) {
        return epoch << 32 | counter;
    }
}
