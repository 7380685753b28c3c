package dev.zklock.recipes.test.history;

import java.nio.file.Path;

/**
 * A child JVM of {@link FencedStoreTest}: adds {@code <prefix>-<i>} with token {@code i} for i from 0 below the count
 * and prints each element the store took, one a line.
 */
final class FencedStoreAdder {
    private FencedStoreAdder() {}

    public static void main(String[] args) {
        FencedStore store = FencedStore.open(Path.of(args[0]));
        int count = Integer.parseInt(args[2]);
        StringBuilder taken = new StringBuilder();
        for (int i = 0; i < count; i++) {
            String element = args[1] + "-" + i;
            if (store.add(element, i)) {
                taken.append(element).append('\n');
            }
        }
        System.out.print(taken);
        System.out.flush();
    }
}
