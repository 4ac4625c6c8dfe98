// The progress report's count of finished samples (host/run/progress_report.hpp): whole batches,
// and the samples of the batches in flight, a batch begun ahead among them.
#include "host/run/progress_report.hpp"

#include <gtest/gtest.h>

namespace rbmc {
namespace {

// Batches of 50 after the 40 rows of a partial file, a batch begun ahead adding 30 samples
// before the one before it is done.
TEST(ProgressReport, CountsTheSamplesOfABatchBegunAhead) {
  ProgressReport progress(false, 1000, 40, 10.0);
  EXPECT_EQ(progress.samples_done(), 40u);
  progress.in_batch() += 50;  // batch [40, 90) integrated
  progress.in_batch() += 30;  // batch [90, 140) begun ahead, 30 of its samples so far
  progress.batches_done(90);
  EXPECT_EQ(progress.samples_done(), 120u);
  progress.in_batch() += 20;
  progress.batches_done(140);
  EXPECT_EQ(progress.samples_done(), 140u);
}

// A resumed run replays 60 journalled rows after its partial file's 40 before it integrates: its
// first batch's end takes off that batch's samples only, not the replayed rows, which would drop
// the samples of the batch begun ahead from the count until the next batch.
TEST(ProgressReport, RowsFoundDoneAreNotTakenOffTheBatchesInFlight) {
  ProgressReport progress(false, 1000, 40, 10.0);
  progress.found_done(100);
  EXPECT_EQ(progress.samples_done(), 100u);
  progress.in_batch() += 50;  // batch [100, 150)
  progress.in_batch() += 30;  // batch [150, 200) begun ahead
  progress.batches_done(150);
  EXPECT_EQ(progress.samples_done(), 180u);
}

TEST(ProgressReport, NeverCountsMoreThanTheRun) {
  ProgressReport progress(false, 100, 0, 10.0);
  progress.in_batch() += 150;
  EXPECT_EQ(progress.samples_done(), 100u);
}

}  // namespace
}  // namespace rbmc
