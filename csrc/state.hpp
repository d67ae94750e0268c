// cule: the per-console state, as one plain struct, and the per-game configuration
// that is shared by every console of a batch.
//
// The frame buffers (two palette-index buffers per console, swapped every frame as
// Stella's TIA does) are not part of this struct: a backend owns them and hands the
// core a pointer.  Everything here is plain data so a backend may copy, interleave
// or move it to device memory freely.
#pragma once
#include "common.hpp"
#include "cpu6507.hpp"
#include "mt19937.hpp"
#include "cart_state.hpp"

namespace cule {

// Colour-clock geometry of the TIA (TIA hardware manual: 228 clocks a line, 68 of them
// horizontal blank; 3 colour clocks per CPU cycle).
constexpr int kClocksPerLine = 228;
constexpr int kHBlank = 68;
// Stella allocates 160 x 300 palette indices per frame buffer; after a system reset
// the first frame can draw YStart extra lines, so we keep the same capacity.
constexpr int kFrameBufferLines = 300;
constexpr int kFrameBufferBytes = 160 * kFrameBufferLines;

enum CartType : uint8_t {
  CART_2K = 0, CART_4K, CART_F8, CART_F6, CART_F8_SWAPPED,
  CART_E0, CART_FE, CART_F6SC, CART_F8SC, CART_DPC,
  CART_COUNT
};

enum ControllerType : uint8_t { CTRL_JOYSTICK = 0, CTRL_PADDLES = 1 };

constexpr uint32_t kSystemRandomSeed = 4753849;   // ALE's default system_random_seed

// Immutable, per-game settings (ALE 0.12.1 RomSettings + Stella properties).
struct GameConfig {
  uint32_t rom_size;
  uint8_t cart_type;         // CartType
  uint8_t game_id;           // GameId (games.hpp)
  uint8_t pal;               // display format after auto-detect is PAL
  uint8_t autodetect;        // properties say AUTO-DETECT: the console runs 60 frames at power-on
  uint8_t ctrl_type[2];      // controller plugged in the left / right port
  uint8_t ctrl_jack[2];      // jack each port's controller answers as (0 left, 1 right; SwapPorts)
  uint8_t swap_paddles;
  uint8_t left_diff_a;       // properties' Console.LeftDifficulty == "A"
  uint8_t right_diff_a;
  uint8_t hmove_blanks;      // Emulation.HmoveBlanks
  uint8_t use_paddles;       // either port has paddles (ALE drives paddles then)
  // Sound observations (ALE sound_obs; tia_sound.hpp): 1 tracks the TIA's audio
  // registers, so that acts can make samples (Machine::audio); 0 ignores audio writes.
  // A batch setting, fixed when it is made.
  uint8_t sound;
  // ALE's `cpu` setting (Console.cxx): 0 "low", the default, ALE's M6502Low; 1 any
  // other value, M6502High, which charges a cycle at each bus access and makes the
  // dummy accesses of the real chip (cpu6507.hpp).  A batch setting; CPU backend only.
  uint8_t cpu_high;
  uint16_t ystart;
  uint16_t height;           // properties' height (210 unless overridden)
  uint16_t screen_height;    // observation height ALE reports (250 for PAL with height 210)
  int32_t paddle_min, paddle_max;
  // ALE system_random_seed: seeds the system RNG when a console is made (System's
  // constructor, ALE 0.12.1 System.cxx; an int32 setting taken as uint32).  A batch
  // setting, kSystemRandomSeed unless ALEInterface's setting says otherwise.
  uint32_t system_seed;
};

// The events ALE's Event object holds (Stella Event::Type), reduced to what the
// console reads.
struct Inputs {
  uint8_t joy[2];            // bit 0 up, 1 down, 2 left, 3 right, 4 fire (Joystick Zero / One)
  uint8_t paddle_fire;       // bit i: Paddle i fire
  uint8_t console;           // bit 0 reset, 1 select, 2 left A, 3 left B, 4 right A, 5 right B
  int32_t paddle_res[4];     // Paddle i resistance
};

struct RiotState {
  uint8_t ram[128];
  uint32_t timer;
  uint32_t interval_shift;
  int32_t cycles_when_timer_set;
  int32_t cycles_when_irq_reset;
  uint8_t timer_read_after_irq;
  uint8_t ddra, ddrb;
  uint8_t swchb;             // the console switches' latched state (Stella Switches)
};

// Snapshot of the parameters an object's mask was computed from.  Stella keeps a
// pointer into precomputed tables; the pointer only moves at specific events, so the
// snapshot is what decides which pixels an object covers.
struct TiaState {
  int32_t clk_frame_start;
  int32_t clk_disp_start;
  int32_t clk_disp_stop;
  int32_t clk_last_update;
  int32_t clk_pending;       // clock of the last TIA access that left the catch-up for later
  int32_t clks_to_eol;
  int32_t vsync_finish_clk;
  int32_t last_hmove_clk;
  int32_t scanline_count_last;
  int32_t current_scanline;
  int32_t max_scanlines;
  int32_t dump_disabled_cycle;
  uint32_t fb_pos;           // next pixel written in the current frame buffer
  uint32_t pf;               // PF0..PF2, 20 bits
  uint32_t cosmic_counter;
  uint16_t collision;
  int16_t posp0, posp1, posm0, posm1, posbl;
  int16_t p0m_pos, p1m_pos, m0m_pos, m1m_pos, blm_pos;
  uint8_t p0m_en, p0m_mode, p1m_en, p1m_mode;
  uint8_t m0m_num, m0m_size, m0m_off, m1m_num, m1m_size, blm_size;
  uint8_t pfm_reflect;
  uint8_t enabled;
  uint8_t vsync, vblank, nusiz0, nusiz1, prio_score, ctrlpf;
  uint8_t refp0, refp1, grp0, grp1, dgrp0, dgrp1;
  uint8_t enam0, enam1, enabl, denabl;
  int8_t hmp0, hmp1, hmm0, hmm1, hmbl;
  uint8_t vdelp0, vdelp1, vdelbl, resmp0, resmp1;
  uint8_t cur_grp0, cur_grp1;
  uint8_t colubk, colupf, colup0, colup1;
  uint8_t hmove_blank, cosmic_enabled, dump_enabled;
  uint8_t color_loss, allow_hmove_blanks;
  uint8_t partial_frame, frame_greyed, cur_buf;
  // Rendering control (not Stella state): `render` 0 skips drawing pixels (collisions
  // are still computed), 1 draws, 2 draws tentatively (a pass that may be redone, see
  // ale_act_observed: an unfinished frame is then not greyed, as greying twice would
  // not be ALE's picture, and its buffer counts as inexact); `frame_rendered` says
  // every part of the current frame was drawn; bit b of `fb_exact` says frame buffer
  // b holds exactly what ALE's would.
  uint8_t render, frame_rendered, fb_exact;
  uint16_t ystart, height;
};

// The TIA's audio registers and tone generators (tia_sound.hpp), as ALE's sound device
// keeps them.  Only written when the batch has sound observations (GameConfig::sound).
struct SoundState {
  uint8_t audc[2], audf[2], audv[2];   // AUDC0/1, AUDF0/1, AUDV0/1
  uint8_t p4[2], p5[2];                // each channel's 4- and 5-bit shift registers
  uint8_t div[2];                      // each channel's frequency divider count
};

// Per-game RomSettings variables (reward, terminal, lives) as ALE keeps them.
struct GameVars {
  int32_t score;
  int32_t reward;
  int32_t lives;
  uint8_t terminal;
  uint8_t started;
  int32_t aux[4];            // further per-game variables (each game's header says which)
};

struct Console {
  CpuState cpu;
  uint32_t cycles;           // System cycles since the last resetCycles()
  uint8_t data_bus;          // last value on the data bus (TIA reads return it in bits 0-5)
  uint8_t last_access_read;  // M6502Low's lastAccessWasRead (WSYNC only halts after a read)
  uint8_t stop;              // the TIA asked the CPU to stop (end of frame)
  RiotState riot;
  TiaState tia;
  CartState cart;
  Inputs in;
  // ALE environment (StellaEnvironment + ALEState)
  GameVars game;
  int32_t frame_number;
  int32_t episode_frame_number;
  int32_t left_paddle, right_paddle;
  uint8_t action_a;          // the action ALE repeats when an action sticks
  uint16_t mode;             // ALE game mode (video_cube goes up to 5002)
  uint8_t difficulty;
  uint8_t truncated;
  SoundState snd;
  Mt19937 sys_rng;           // (the RNGs stay last: the reset_game memo relies on it)
  Mt19937 env_rng;
};

}  // namespace cule
