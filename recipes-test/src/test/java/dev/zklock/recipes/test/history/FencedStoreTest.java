package dev.zklock.recipes.test.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The fenced store, within one JVM and across JVMs. */
@Timeout(60)
final class FencedStoreTest {
    private static final int PER_WRITER = 300;

    @TempDir
    Path dir;

    @Test
    void add_withAnOlderToken_isRefusedAndAnEqualTokenTaken() {
        FencedStore store = FencedStore.open(dir.resolve("set"));

        assertThat(store.add("a", 5)).isTrue();
        assertThat(store.add("b", 5)).isTrue();
        assertThat(store.add("late", 4)).isFalse();
        assertThat(store.add("c", 9)).isTrue();

        assertThat(FencedStore.open(dir.resolve("set")).read()).containsExactly("a", "b", "c");
        assertThat(store.newestToken()).hasValue(9);
    }

    @Test
    void add_anElementWithAComma_throwsNamingIt() {
        FencedStore store = FencedStore.open(dir);

        assertThatThrownBy(() -> store.add("a,b", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'a,b'");
        assertThat(store.read()).isEmpty();
    }

    @Test
    void add_fromThreadsOfOneJvmAndTwoOtherJvms_takesExactlyWhatItAcknowledgedInTokenOrder() throws Exception {
        Path set = dir.resolve("set");
        List<Process> children = new ArrayList<>();
        for (String prefix : List.of("p1", "p2")) {
            children.add(adderProcess(set, prefix));
        }
        List<String> taken = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (String prefix : List.of("t1", "t2")) {
                FencedStore store = FencedStore.open(set);
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < PER_WRITER; i++) {
                        if (store.add(prefix + "-" + i, i)) {
                            taken.add(prefix + "-" + i);
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get();
            }
            for (Process child : children) {
                taken.addAll(outputOf(child));
            }
        } finally {
            pool.shutdownNow();
            children.forEach(Process::destroyForcibly);
        }

        List<String> stored = FencedStore.open(set).read();
        assertThat(stored).containsExactlyInAnyOrderElementsOf(taken);
        assertThat(stored).doesNotHaveDuplicates();
        assertThat(stored).extracting(FencedStoreTest::tokenOf).isSorted();
    }

    private static long tokenOf(String element) {
        return Long.parseLong(element.substring(element.indexOf('-') + 1));
    }

    private static Process adderProcess(Path set, String prefix) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        return new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        FencedStoreAdder.class.getName(),
                        set.toString(),
                        prefix,
                        Integer.toString(PER_WRITER))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    private static List<String> outputOf(Process child) throws Exception {
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor()).as("exit code of the adder JVM").isZero();
        return out.isEmpty() ? List.of() : List.of(out.split("\n"));
    }
}
