//! The fixed-timestep accumulator: logic advances only in whole `FIXED_DT`
//! steps, decoupled from the frame rate.

/// Seconds per logic step: 60 steps per second.
pub const FIXED_DT: f64 = 1.0 / 60.0;
/// At most this many steps per frame, so a slow machine catches up instead of spiralling.
pub const MAX_STEPS_PER_FRAME: u32 = 5;
/// Real elapsed time per frame is clamped to this, so a stall never injects a huge jump.
pub const MAX_FRAME_DELTA: f64 = 0.25;
/// The largest alpha: the float just below 1. A frame that leaves a backlog of whole steps (the
/// per-frame cap hit) draws the newest state, not an extrapolation past it.
const LAST_ALPHA: f64 = 1.0 - f64::EPSILON / 2.0;

/// What one frame must do: run `steps` fixed steps, then render with `alpha`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FramePlan {
  pub steps: u32,
  /// Leftover fraction of a step in [0, 1): interpolation between fixed states.
  pub alpha: f64,
}

#[derive(Debug, Default, Clone)]
pub struct FixedStepAccumulator {
  accumulator: f64,
  /// Elapsed time the clamp to `MAX_FRAME_DELTA` discarded, in seconds.
  dropped: f64,
}

impl FixedStepAccumulator {
  pub fn new() -> Self {
    Self::default()
  }

  /// Adds one frame's real elapsed seconds and returns the steps to run and
  /// the render alpha, exactly as the spec's loop:
  /// `acc += min(elapsed, 0.25); while acc >= DT && n < 5 { step; acc -= DT }`.
  pub fn advance(&mut self, elapsed: f64) -> FramePlan {
    let elapsed = if elapsed.is_finite() { elapsed.max(0.0) } else { 0.0 };
    self.dropped += (elapsed - MAX_FRAME_DELTA).max(0.0);
    self.accumulator += elapsed.min(MAX_FRAME_DELTA);
    let mut steps = 0;
    while self.accumulator >= FIXED_DT && steps < MAX_STEPS_PER_FRAME {
      self.accumulator -= FIXED_DT;
      steps += 1;
    }
    FramePlan { steps, alpha: (self.accumulator / FIXED_DT).min(LAST_ALPHA) }
  }

  /// Time carried into the next frame, in seconds.
  pub fn pending(&self) -> f64 {
    self.accumulator
  }

  /// Elapsed time the clamp has discarded so far, in seconds: after a stall
  /// the loop does not catch up past `MAX_FRAME_DELTA`.
  pub fn dropped(&self) -> f64 {
    self.dropped
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn one_step_per_fixed_dt_frame_with_zero_alpha() {
    let mut acc = FixedStepAccumulator::new();
    for _ in 0..600 {
      assert_eq!(acc.advance(FIXED_DT), FramePlan { steps: 1, alpha: 0.0 });
    }
  }

  #[test]
  fn sixty_steps_per_simulated_second_at_any_frame_rate() {
    for fps in [30.0, 60.0, 75.0, 144.0, 240.0] {
      let mut acc = FixedStepAccumulator::new();
      let frames = fps as usize * 10;
      let steps: u32 = (0..frames).map(|_| acc.advance(1.0 / fps).steps).sum();
      // Ten simulated seconds; float rounding may leave the last step in the accumulator.
      assert!((599..=600).contains(&steps), "{fps} fps gave {steps} steps in 10 s");
    }
  }

  #[test]
  fn caps_at_five_steps_per_frame_and_keeps_the_rest() {
    let mut acc = FixedStepAccumulator::new();
    let plan = acc.advance(0.2); // 12 steps' worth
    assert_eq!(plan.steps, MAX_STEPS_PER_FRAME);
    // Seven steps still owed: the frame draws the newest state, alpha stays below 1.
    assert!((0.0..1.0).contains(&plan.alpha) && plan.alpha > 0.99, "alpha {}", plan.alpha);
    assert!((acc.pending() - (0.2 - 5.0 * FIXED_DT)).abs() < 1e-12);
    // The backlog drains at most five per frame.
    assert_eq!(acc.advance(0.0).steps, 5);
    assert_eq!(acc.advance(0.0).steps, 2);
    assert_eq!(acc.advance(0.0).steps, 0);
  }

  #[test]
  fn clamps_a_stall_to_a_quarter_second() {
    let mut clamped = FixedStepAccumulator::new();
    let mut quarter = FixedStepAccumulator::new();
    clamped.advance(10.0);
    quarter.advance(MAX_FRAME_DELTA);
    assert_eq!(clamped.pending(), quarter.pending());
    // What the clamp discarded is counted (the host reports it), nothing else is.
    assert_eq!(clamped.dropped(), 10.0 - MAX_FRAME_DELTA);
    assert_eq!(quarter.dropped(), 0.0);
    // 0.25 s is 15 steps: 5 now, then the backlog.
    let total: u32 = 5 + (0..5).map(|_| clamped.advance(0.0).steps).sum::<u32>();
    assert_eq!(total, 15);
  }

  #[test]
  fn alpha_is_the_leftover_fraction() {
    let mut acc = FixedStepAccumulator::new();
    let plan = acc.advance(FIXED_DT * 1.25);
    assert_eq!(plan.steps, 1);
    assert!((plan.alpha - 0.25).abs() < 1e-9, "alpha {}", plan.alpha);
    let plan = acc.advance(FIXED_DT * 0.5);
    assert_eq!(plan.steps, 0);
    assert!((plan.alpha - 0.75).abs() < 1e-9, "alpha {}", plan.alpha);
    assert!((0.0..1.0).contains(&plan.alpha));
  }

  #[test]
  fn hostile_deltas_do_not_move_time_backwards_or_poison_it() {
    let mut acc = FixedStepAccumulator::new();
    assert_eq!(acc.advance(-1.0).steps, 0);
    assert_eq!(acc.advance(f64::NAN).steps, 0);
    assert_eq!(acc.advance(f64::INFINITY).steps, 0);
    assert_eq!(acc.pending(), 0.0);
  }
}
