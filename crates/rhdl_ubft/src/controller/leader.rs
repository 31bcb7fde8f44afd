//! Leader: the LEADER machine. It opens every slot and, on the view's
//! leader, proposes.
//!
//! States (`sts_state` number, as in `status::STATE_NAMES`):
//!
//! | # | state | leaves when | to |
//! | ---: | --- | --- | --- |
//! | – | Off | `start` | LeaderCheck |
//! | 1 | LeaderCheck | id is the view's leader / is not | LeaderWaitValue / Off, `start_fast` |
//! | 2 | LeaderWaitValue | a request is held / none | LeaderSendPrepare (broadcast (k, m, view, 0), m the oldest request) / LeaderIdle (an idle poll) |
//! | 3 | LeaderIdle | the idle poll is back (a miss) / and it times out | LeaderWaitValue / Off, `start_view` |
//! | 4 | LeaderSendPrepare | the broadcast is done | Off, `start_fast` |
//!
//! Handshakes: `start` comes from Protocol (an accepted `ap_start`, or a
//! decision taken) or from VIEW (a NEW_VIEW installed: the new view's
//! leader proposes, only the carried value if there is one). The machine
//! hands the slot to FAST (`start_fast`) or, when a leader with nothing to
//! propose times out, to VIEW (`start_view`), and goes Off in the same
//! cycle.
//!
//! Requests to Protocol, which owns the slot's registers: `open_round` in
//! LeaderCheck (votes from here on carry this view; phase 0; the wait and
//! the decision path cleared), `set_m` with the proposal, `missed` for each
//! idle poll. Inputs: the oldest request this replica holds (`head_valid`,
//! `head_m`, from crate::controller::requests: it stays there until decided, so a
//! proposal a view change dropped is proposed again). Ports: one fetch and
//! one broadcast request at a time through Protocol; the broadcast request says
//! where (`bc_word`) and what (`bc_prepare`), and Protocol lays the
//! prepare out from the slot's registers and the m taken.
//!
//! The idle polls are `poll`s to Fetch (Protocol's `fetch_poll`): they read
//! ahead as FAST's do (docs/fetch.md, "Reading ahead"), two per H + 3
//! cycles, and Protocol counts them against twice the others' limit, so a
//! leader with nothing to propose times out after as many cycles as before.
//!
//! Timing: every handover is combinational. The receiving machine leaves Off
//! at the clock edge at which this one enters it, so a handover costs no
//! cycle: LeaderCheck lasts one cycle, and a follower is in FastPollPrepare
//! the cycle after it.
//!
//! Reset (`rst_n`, synchronous, active low): Off the next cycle.

use rust_hdl::prelude::*;

/// LEADER's states; `Off` while another machine holds the slot.
#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum LeaderSt {
    Off,
    LeaderCheck,
    LeaderWaitValue,
    LeaderIdle,
    LeaderSendPrepare,
}

/// Every state, in declaration order.
pub const LEADER_STATES: [LeaderSt; 5] = [
    LeaderSt::Off,
    LeaderSt::LeaderCheck,
    LeaderSt::LeaderWaitValue,
    LeaderSt::LeaderIdle,
    LeaderSt::LeaderSendPrepare,
];

#[derive(LogicBlock, Default)]
pub struct Leader {
    pub clock: Signal<In, Clock>,
    pub rst_n: Signal<In, Bit>,
    // Handshakes.
    pub start: Signal<In, Bit>,
    pub start_fast: Signal<Out, Bit>,
    pub start_view: Signal<Out, Bit>,
    // The slot (Protocol's registers) and the configuration.
    pub id: Signal<In, Bits<8>>,
    /// The view's leader.
    pub leader_id: Signal<In, Bits<8>>,
    /// prepare[slot], in words from the mailbox's base.
    pub prep_word: Signal<In, Bits<32>>,
    /// The next miss is the `wait_polls`-th in a row.
    pub expiring: Signal<In, Bit>,
    // Requests to Protocol.
    pub open_round: Signal<Out, Bit>,
    pub set_m: Signal<Out, Bit>,
    pub m_next: Signal<Out, Bits<32>>,
    pub missed: Signal<Out, Bit>,
    /// The oldest request held (crate::controller::requests).
    pub head_valid: Signal<In, Bit>,
    pub head_m: Signal<In, Bits<32>>,
    // Fetch and Broadcast, through Protocol.
    pub fetch_start: Signal<Out, Bit>,
    pub fetch_word: Signal<Out, Bits<32>>,
    pub fetch_done: Signal<In, Bit>,
    /// With `bc_start`: write the prepare (k, m, view, 0) at `bc_word`.
    pub bc_start: Signal<Out, Bit>,
    pub bc_word: Signal<Out, Bits<32>>,
    pub bc_prepare: Signal<Out, Bit>,
    pub bc_done: Signal<In, Bit>,
    /// The state's number (`STATE_NAMES`), 0 when Off.
    pub sts_state: Signal<Out, Bits<8>>,
    state: DFF<LeaderSt>,
}

impl Leader {
    /// The state register.
    pub fn state(&self) -> LeaderSt {
        self.state.q.val()
    }

    /// Is the machine holding the slot (not Off)?
    pub fn active(&self) -> bool {
        self.state.q.val() != LeaderSt::Off
    }

    /// The number `sts_state` reports in state `st`, read from the logic.
    pub fn reported(st: LeaderSt) -> u8 {
        let mut b = Self::default();
        b.state.q.next = st;
        b.state.q.update_all();
        b.update();
        b.sts_state.next.to_u8()
    }
}

impl Logic for Leader {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        // Outputs are zero unless a state drives them: Protocol ORs the
        // machines' requests, and only one machine is out of Off. A value
        // (`m_next`, `bc_word`, `fetch_word`) may be driven for the whole
        // state; its strobe (`set_m`, `bc_start`, `fetch_start`) says when
        // it counts.
        self.start_fast.next = false;
        self.start_view.next = false;
        self.open_round.next = false;
        self.set_m.next = false;
        self.m_next.next = 0.into();
        self.missed.next = false;
        self.fetch_start.next = false;
        self.fetch_word.next = 0.into();
        self.bc_start.next = false;
        self.bc_word.next = 0.into();
        self.bc_prepare.next = false;
        match self.state.q.val() {
            LeaderSt::Off => {
                if self.start.val() {
                    self.state.d.next = LeaderSt::LeaderCheck;
                }
            }
            LeaderSt::LeaderCheck => {
                self.open_round.next = true;
                if self.id.val() == self.leader_id.val() {
                    self.state.d.next = LeaderSt::LeaderWaitValue;
                } else {
                    self.start_fast.next = true;
                    self.state.d.next = LeaderSt::Off;
                }
            }
            LeaderSt::LeaderWaitValue => {
                // Values for the requests below (Protocol reads them only
                // with their strobes): gated by the state alone.
                self.m_next.next = self.head_m.val();
                self.bc_word.next = self.prep_word.val();
                self.fetch_word.next = self.prep_word.val();
                if self.head_valid.val() {
                    // The prepare carries the oldest request.
                    self.set_m.next = true;
                    self.bc_start.next = true;
                    self.bc_prepare.next = true;
                    self.state.d.next = LeaderSt::LeaderSendPrepare;
                } else {
                    // No value yet: an idle poll, so the wait counts in polls
                    // and a leader with nothing to propose times out too.
                    self.fetch_start.next = true;
                    self.state.d.next = LeaderSt::LeaderIdle;
                }
            }
            LeaderSt::LeaderIdle => {
                if self.fetch_done.val() {
                    self.missed.next = true;
                    if self.expiring.val() {
                        self.start_view.next = true;
                        self.state.d.next = LeaderSt::Off;
                    } else {
                        self.state.d.next = LeaderSt::LeaderWaitValue;
                    }
                }
            }
            LeaderSt::LeaderSendPrepare => {
                if self.bc_done.val() {
                    self.start_fast.next = true;
                    self.state.d.next = LeaderSt::Off;
                }
            }
            _ => {
                self.state.d.next = LeaderSt::Off;
            }
        }
        if !self.rst_n.val() {
            self.state.d.next = LeaderSt::Off;
        }
        match self.state.q.val() {
            LeaderSt::LeaderCheck => {
                self.sts_state.next = 1.into();
            }
            LeaderSt::LeaderWaitValue => {
                self.sts_state.next = 2.into();
            }
            LeaderSt::LeaderIdle => {
                self.sts_state.next = 3.into();
            }
            LeaderSt::LeaderSendPrepare => {
                self.sts_state.next = 4.into();
            }
            _ => {
                self.sts_state.next = 0.into();
            }
        }
    }
}
