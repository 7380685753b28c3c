package dev.zklock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.ref.Reference;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The live heap by class, as the bench reads it in process: the whole, and the virtual threads' stack chunks. */
final class ClassHistogramTest {
    private static final String JDK_25_HISTOGRAM = String.join(
            "\n",
            " num     #instances         #bytes  class name (module)",
            "-------------------------------------------------------",
            "   1:         10260       16907840  jdk.internal.vm.StackChunk (java.base@25.0.3)",
            "   2:         94202        9213280  [B (java.base@25.0.3)",
            "   3:             1             16  sun.util.resources.LocaleData$LocaleDataStrategy (java.base@25.0.3)",
            "Total        506405       44175856",
            "");

    @Test
    void parse_aHistogram_readsItsTotalAndItsStackChunks() {
        ClassHistogram histogram = ClassHistogram.parse(JDK_25_HISTOGRAM);

        assertThat(histogram.totalBytes()).isEqualTo(44_175_856);
        assertThat(histogram.stackChunkBytes()).isEqualTo(16_907_840);
        assertThat(histogram.withoutStackChunks()).isEqualTo(44_175_856 - 16_907_840);
    }

    @Test
    void parse_aHistogramWithoutStackChunks_countsNoneOfThem() {
        ClassHistogram histogram = ClassHistogram.parse(JDK_25_HISTOGRAM.replace("jdk.internal.vm.StackChunk", "[I"));

        assertThat(histogram.stackChunkBytes()).isZero();
        assertThat(histogram.withoutStackChunks()).isEqualTo(44_175_856);
    }

    @Test
    void changesSince_anEarlierHistogram_givesTheLargestChangesFirstAndNoneOfAnUnchangedClass() {
        ClassHistogram earlier = ClassHistogram.parse(JDK_25_HISTOGRAM);
        ClassHistogram later = ClassHistogram.parse(String.join(
                "\n",
                "   1:         10000       16000000  jdk.internal.vm.StackChunk (java.base@25.0.3)",
                "   2:         94302        9218080  [B (java.base@25.0.3)",
                "   3:             1             16  sun.util.resources.LocaleData$LocaleDataStrategy (java.base@25.0.3)",
                "   4:           100           3200  java.util.HashMap$Node (java.base@25.0.3)",
                "Total        504404       25221296"));

        assertThat(later.bytesByClass()).containsEntry("[B", 9_218_080L).hasSize(4);
        assertThat(later.changesSince(earlier, 10))
                .containsExactly(
                        Map.entry(ClassHistogram.STACK_CHUNK, -907_840L),
                        Map.entry("[B", 4_800L),
                        Map.entry("java.util.HashMap$Node", 3_200L));
        assertThat(later.changesSince(earlier, 1)).containsOnlyKeys(ClassHistogram.STACK_CHUNK);
    }

    @Test
    void parse_textWithoutATotal_throwsIllegalArgumentQuotingIt() {
        assertThatThrownBy(() -> ClassHistogram.parse("GC.class_histogram: unknown command"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'GC.class_histogram: unknown command'");
    }

    @Test
    void take_aroundAnArrayKeptAlive_growsByAtLeastItsSize() {
        ClassHistogram before = ClassHistogram.take().orElseThrow();
        long[] kept = new long[1_000_000];

        ClassHistogram after = ClassHistogram.take().orElseThrow();

        // 8,000,016 bytes of long[], read by class: the heap's total moves with what else dies between the readings (an
        // earlier test's threads and buffers: 1.5 MB once in CI, where the total grew by 6,463,392 bytes)
        assertThat(after.bytesByClass().getOrDefault("[J", 0L)
                        - before.bytesByClass().getOrDefault("[J", 0L))
                .isGreaterThan(7_000_000L);
        assertThat(after.totalBytes()).isGreaterThan(after.bytesByClass().getOrDefault("[J", 0L));
        Reference.reachabilityFence(kept);
    }
}
