// cule: the 6507's 256 opcodes as table entries (operation, addressing mode, base
// cycles; the bus access kind and page-crossing penalty follow from those two) for
// Core::step (cpu6507.hpp).  The
// facts (cycles, addressing, undocumented opcodes as the reference maps them) are those
// listed at the top of cpu6507.hpp: the reference's (Stella's 6502 "low compatibility"
// core in ALE 0.12.1) cycle table and opcode map, and the published NMOS 6502 tables.
#pragma once

#include <stdint.h>

#include "common.hpp"

namespace cule {
namespace cpu6507 {

// Addressing modes, in the order Core::step relies on: from kRel on the opcode has
// an operand byte, from kAbs on two.  kSpecial: stack and control-flow instructions
// (BRK JSR RTI RTS PHA PHP PLA PLP, JMP (ind)) and JAM, run by Core::step_special.
enum Mode : uint32_t {
  kImp = 0, kImm, kRel, kZp, kZpX, kZpY, kIndX, kIndY, kAbs, kAbsX, kAbsY, kSpecial = 15
};

// Bus access of the data operand: none, read, write, read-modify-write (bit 0: read,
// bit 1: write).
enum Access : uint32_t { kNone = 0, kRead = 1, kWrite = 2, kRmw = 3 };

// Operations, grouped by access (access_of relies on the order).  Read: applied to the
// byte read.  Write: give the byte written.  Read-modify-write: byte read -> byte
// written.  Others use no data operand, except NOP with an operand, which reads it.
enum Op : uint32_t {
  kORA, kAND, kEOR, kADC, kSBC, kCMP, kCPX, kCPY, kBIT, kLDA, kLDX, kLDY, kLAX, kANC, kASR, kARR, kANE, kLXA,
  kSBX, kLAS,
  kSTA, kSTX, kSTY, kSAX, kSHA, kSHX, kSHY, kSHS,
  kASL, kLSR, kROL, kROR, kINC, kDEC, kSLO, kRLA, kSRE, kRRA, kDCP, kISB,
  kASLA, kLSRA, kROLA, kRORA, kTAX, kTAY, kTXA, kTYA, kTSX, kTXS, kINX, kINY, kDEX, kDEY,
  kCLC, kSEC, kCLI, kSEI, kCLD, kSED, kCLV, kNOP, kJMP,
  kBPL, kBMI, kBVC, kBVS, kBCC, kBCS, kBNE, kBEQ,
  kSpecialOp
};

// The data access an operation makes in a mode.
constexpr CULE_HOST_DEVICE uint32_t access_of(uint32_t op, uint32_t mode) {
  return op < kSTA ? kRead : op < kASL ? kWrite : op < kASLA ? kRmw : (op == kNOP && mode != kImp) ? kRead : kNone;
}
// The extra cycle when indexing crosses a page: read-only abs,X / abs,Y / (zp),Y.
constexpr CULE_HOST_DEVICE uint32_t page_penalty(uint32_t op, uint32_t mode) {
  return access_of(op, mode) == kRead && (mode == kAbsX || mode == kAbsY || mode == kIndY) ? 1u : 0u;
}

// Entry layout: op in bits 0-6, mode in 8-11, base cycles in 12-15, page-crossing
// penalty in bit 16, access in bits 17-18.
#define CULE_D(op, mode, cycles) \
  ((uint32_t)(op) | ((uint32_t)(mode) << 8) | ((uint32_t)(cycles) << 12) | (page_penalty(op, mode) << 16) | \
   (access_of(op, mode) << 17))
#define CULE_6507_DECODE_ENTRIES \
  CULE_D(kSpecialOp, kSpecial, 7),       /* 00 BRK */ \
  CULE_D(kORA, kIndX, 6),                /* 01 ORA (zp,X) */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 02 JAM */ \
  CULE_D(kSLO, kIndX, 8),                /* 03 SLO (zp,X)  (undoc) */ \
  CULE_D(kNOP, kZp, 3),                  /* 04 NOP zp  (undoc) */ \
  CULE_D(kORA, kZp, 3),                  /* 05 ORA zp */ \
  CULE_D(kASL, kZp, 5),                  /* 06 ASL zp */ \
  CULE_D(kSLO, kZp, 5),                  /* 07 SLO zp  (undoc) */ \
  CULE_D(kSpecialOp, kSpecial, 3),       /* 08 PHP */ \
  CULE_D(kORA, kImm, 2),                 /* 09 ORA #imm */ \
  CULE_D(kASLA, kImp, 2),                /* 0A ASL A */ \
  CULE_D(kANC, kImm, 2),                 /* 0B ANC #imm  (undoc) */ \
  CULE_D(kNOP, kAbs, 4),                 /* 0C NOP abs  (undoc) */ \
  CULE_D(kORA, kAbs, 4),                 /* 0D ORA abs */ \
  CULE_D(kASL, kAbs, 6),                 /* 0E ASL abs */ \
  CULE_D(kSLO, kAbs, 6),                 /* 0F SLO abs  (undoc) */ \
  CULE_D(kBPL, kRel, 2),                 /* 10 BPL rel */ \
  CULE_D(kORA, kIndY, 5),                /* 11 ORA (zp),Y */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 12 JAM */ \
  CULE_D(kSLO, kIndY, 8),                /* 13 SLO (zp),Y  (undoc) */ \
  CULE_D(kNOP, kZpX, 4),                 /* 14 NOP zp,X  (undoc) */ \
  CULE_D(kORA, kZpX, 4),                 /* 15 ORA zp,X */ \
  CULE_D(kASL, kZpX, 6),                 /* 16 ASL zp,X */ \
  CULE_D(kSLO, kZpX, 6),                 /* 17 SLO zp,X  (undoc) */ \
  CULE_D(kCLC, kImp, 2),                 /* 18 CLC */ \
  CULE_D(kORA, kAbsY, 4),                /* 19 ORA abs,Y */ \
  CULE_D(kNOP, kImp, 2),                 /* 1A NOP  (undoc) */ \
  CULE_D(kSLO, kAbsY, 7),                /* 1B SLO abs,Y  (undoc) */ \
  CULE_D(kNOP, kAbsX, 4),                /* 1C NOP abs,X  (undoc) */ \
  CULE_D(kORA, kAbsX, 4),                /* 1D ORA abs,X */ \
  CULE_D(kASL, kAbsX, 7),                /* 1E ASL abs,X */ \
  CULE_D(kSLO, kAbsX, 7),                /* 1F SLO abs,X  (undoc) */ \
  CULE_D(kSpecialOp, kSpecial, 6),       /* 20 JSR */ \
  CULE_D(kAND, kIndX, 6),                /* 21 AND (zp,X) */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 22 JAM */ \
  CULE_D(kRLA, kIndX, 8),                /* 23 RLA (zp,X)  (undoc) */ \
  CULE_D(kBIT, kZp, 3),                  /* 24 BIT zp */ \
  CULE_D(kAND, kZp, 3),                  /* 25 AND zp */ \
  CULE_D(kROL, kZp, 5),                  /* 26 ROL zp */ \
  CULE_D(kRLA, kZp, 5),                  /* 27 RLA zp  (undoc) */ \
  CULE_D(kSpecialOp, kSpecial, 4),       /* 28 PLP */ \
  CULE_D(kAND, kImm, 2),                 /* 29 AND #imm */ \
  CULE_D(kROLA, kImp, 2),                /* 2A ROL A */ \
  CULE_D(kANC, kImm, 2),                 /* 2B ANC #imm  (undoc) */ \
  CULE_D(kBIT, kAbs, 4),                 /* 2C BIT abs */ \
  CULE_D(kAND, kAbs, 4),                 /* 2D AND abs */ \
  CULE_D(kROL, kAbs, 6),                 /* 2E ROL abs */ \
  CULE_D(kRLA, kAbs, 6),                 /* 2F RLA abs  (undoc) */ \
  CULE_D(kBMI, kRel, 2),                 /* 30 BMI rel */ \
  CULE_D(kAND, kIndY, 5),                /* 31 AND (zp),Y */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 32 JAM */ \
  CULE_D(kRLA, kIndY, 8),                /* 33 RLA (zp),Y  (undoc) */ \
  CULE_D(kNOP, kZpX, 4),                 /* 34 NOP zp,X  (undoc) */ \
  CULE_D(kAND, kZpX, 4),                 /* 35 AND zp,X */ \
  CULE_D(kROL, kZpX, 6),                 /* 36 ROL zp,X */ \
  CULE_D(kRLA, kZpX, 6),                 /* 37 RLA zp,X  (undoc) */ \
  CULE_D(kSEC, kImp, 2),                 /* 38 SEC */ \
  CULE_D(kAND, kAbsY, 4),                /* 39 AND abs,Y */ \
  CULE_D(kNOP, kImp, 2),                 /* 3A NOP  (undoc) */ \
  CULE_D(kRLA, kAbsY, 7),                /* 3B RLA abs,Y  (undoc) */ \
  CULE_D(kNOP, kAbsX, 4),                /* 3C NOP abs,X  (undoc) */ \
  CULE_D(kAND, kAbsX, 4),                /* 3D AND abs,X */ \
  CULE_D(kROL, kAbsX, 7),                /* 3E ROL abs,X */ \
  CULE_D(kRLA, kAbsX, 7),                /* 3F RLA abs,X  (undoc) */ \
  CULE_D(kSpecialOp, kSpecial, 6),       /* 40 RTI */ \
  CULE_D(kEOR, kIndX, 6),                /* 41 EOR (zp,X) */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 42 JAM */ \
  CULE_D(kSRE, kIndX, 8),                /* 43 SRE (zp,X)  (undoc) */ \
  CULE_D(kNOP, kZp, 3),                  /* 44 NOP zp  (undoc) */ \
  CULE_D(kEOR, kZp, 3),                  /* 45 EOR zp */ \
  CULE_D(kLSR, kZp, 5),                  /* 46 LSR zp */ \
  CULE_D(kSRE, kZp, 5),                  /* 47 SRE zp  (undoc) */ \
  CULE_D(kSpecialOp, kSpecial, 3),       /* 48 PHA */ \
  CULE_D(kEOR, kImm, 2),                 /* 49 EOR #imm */ \
  CULE_D(kLSRA, kImp, 2),                /* 4A LSR A */ \
  CULE_D(kASR, kImm, 2),                 /* 4B ASR #imm  (undoc) */ \
  CULE_D(kJMP, kAbs, 3),                 /* 4C JMP abs */ \
  CULE_D(kEOR, kAbs, 4),                 /* 4D EOR abs */ \
  CULE_D(kLSR, kAbs, 6),                 /* 4E LSR abs */ \
  CULE_D(kSRE, kAbs, 6),                 /* 4F SRE abs  (undoc) */ \
  CULE_D(kBVC, kRel, 2),                 /* 50 BVC rel */ \
  CULE_D(kEOR, kIndY, 5),                /* 51 EOR (zp),Y */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 52 JAM */ \
  CULE_D(kSRE, kIndY, 8),                /* 53 SRE (zp),Y  (undoc) */ \
  CULE_D(kNOP, kZpX, 4),                 /* 54 NOP zp,X  (undoc) */ \
  CULE_D(kEOR, kZpX, 4),                 /* 55 EOR zp,X */ \
  CULE_D(kLSR, kZpX, 6),                 /* 56 LSR zp,X */ \
  CULE_D(kSRE, kZpX, 6),                 /* 57 SRE zp,X  (undoc) */ \
  CULE_D(kCLI, kImp, 2),                 /* 58 CLI */ \
  CULE_D(kEOR, kAbsY, 4),                /* 59 EOR abs,Y */ \
  CULE_D(kNOP, kImp, 2),                 /* 5A NOP  (undoc) */ \
  CULE_D(kSRE, kAbsY, 7),                /* 5B SRE abs,Y  (undoc) */ \
  CULE_D(kNOP, kAbsX, 4),                /* 5C NOP abs,X  (undoc) */ \
  CULE_D(kEOR, kAbsX, 4),                /* 5D EOR abs,X */ \
  CULE_D(kLSR, kAbsX, 7),                /* 5E LSR abs,X */ \
  CULE_D(kSRE, kAbsX, 7),                /* 5F SRE abs,X  (undoc) */ \
  CULE_D(kSpecialOp, kSpecial, 6),       /* 60 RTS */ \
  CULE_D(kADC, kIndX, 6),                /* 61 ADC (zp,X) */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 62 JAM */ \
  CULE_D(kRRA, kIndX, 8),                /* 63 RRA (zp,X)  (undoc) */ \
  CULE_D(kNOP, kZp, 3),                  /* 64 NOP zp  (undoc) */ \
  CULE_D(kADC, kZp, 3),                  /* 65 ADC zp */ \
  CULE_D(kROR, kZp, 5),                  /* 66 ROR zp */ \
  CULE_D(kRRA, kZp, 5),                  /* 67 RRA zp  (undoc) */ \
  CULE_D(kSpecialOp, kSpecial, 4),       /* 68 PLA */ \
  CULE_D(kADC, kImm, 2),                 /* 69 ADC #imm */ \
  CULE_D(kRORA, kImp, 2),                /* 6A ROR A */ \
  CULE_D(kARR, kImm, 2),                 /* 6B ARR #imm  (undoc) */ \
  CULE_D(kSpecialOp, kSpecial, 5),       /* 6C JMP (abs) */ \
  CULE_D(kADC, kAbs, 4),                 /* 6D ADC abs */ \
  CULE_D(kROR, kAbs, 6),                 /* 6E ROR abs */ \
  CULE_D(kRRA, kAbs, 6),                 /* 6F RRA abs  (undoc) */ \
  CULE_D(kBVS, kRel, 2),                 /* 70 BVS rel */ \
  CULE_D(kADC, kIndY, 5),                /* 71 ADC (zp),Y */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 72 JAM */ \
  CULE_D(kRRA, kIndY, 8),                /* 73 RRA (zp),Y  (undoc) */ \
  CULE_D(kNOP, kZpX, 4),                 /* 74 NOP zp,X  (undoc) */ \
  CULE_D(kADC, kZpX, 4),                 /* 75 ADC zp,X */ \
  CULE_D(kROR, kZpX, 6),                 /* 76 ROR zp,X */ \
  CULE_D(kRRA, kZpX, 6),                 /* 77 RRA zp,X  (undoc) */ \
  CULE_D(kSEI, kImp, 2),                 /* 78 SEI */ \
  CULE_D(kADC, kAbsY, 4),                /* 79 ADC abs,Y */ \
  CULE_D(kNOP, kImp, 2),                 /* 7A NOP  (undoc) */ \
  CULE_D(kRRA, kAbsY, 7),                /* 7B RRA abs,Y  (undoc) */ \
  CULE_D(kNOP, kAbsX, 4),                /* 7C NOP abs,X  (undoc) */ \
  CULE_D(kADC, kAbsX, 4),                /* 7D ADC abs,X */ \
  CULE_D(kROR, kAbsX, 7),                /* 7E ROR abs,X */ \
  CULE_D(kRRA, kAbsX, 7),                /* 7F RRA abs,X  (undoc) */ \
  CULE_D(kNOP, kImm, 2),                 /* 80 NOP #imm  (undoc) */ \
  CULE_D(kSTA, kIndX, 6),                /* 81 STA (zp,X) */ \
  CULE_D(kNOP, kImm, 2),                 /* 82 NOP #imm  (undoc) */ \
  CULE_D(kSAX, kIndX, 6),                /* 83 SAX (zp,X)  (undoc) */ \
  CULE_D(kSTY, kZp, 3),                  /* 84 STY zp */ \
  CULE_D(kSTA, kZp, 3),                  /* 85 STA zp */ \
  CULE_D(kSTX, kZp, 3),                  /* 86 STX zp */ \
  CULE_D(kSAX, kZp, 3),                  /* 87 SAX zp  (undoc) */ \
  CULE_D(kDEY, kImp, 2),                 /* 88 DEY */ \
  CULE_D(kNOP, kImm, 2),                 /* 89 NOP #imm  (undoc) */ \
  CULE_D(kTXA, kImp, 2),                 /* 8A TXA */ \
  CULE_D(kANE, kImm, 2),                 /* 8B ANE #imm  (undoc) */ \
  CULE_D(kSTY, kAbs, 4),                 /* 8C STY abs */ \
  CULE_D(kSTA, kAbs, 4),                 /* 8D STA abs */ \
  CULE_D(kSTX, kAbs, 4),                 /* 8E STX abs */ \
  CULE_D(kSAX, kAbs, 4),                 /* 8F SAX abs  (undoc) */ \
  CULE_D(kBCC, kRel, 2),                 /* 90 BCC rel */ \
  CULE_D(kSTA, kIndY, 6),                /* 91 STA (zp),Y */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* 92 JAM */ \
  CULE_D(kSHA, kIndY, 6),                /* 93 SHA (zp),Y  (undoc) */ \
  CULE_D(kSTY, kZpX, 4),                 /* 94 STY zp,X */ \
  CULE_D(kSTA, kZpX, 4),                 /* 95 STA zp,X */ \
  CULE_D(kSTX, kZpY, 4),                 /* 96 STX zp,Y */ \
  CULE_D(kSAX, kZpY, 4),                 /* 97 SAX zp,Y  (undoc) */ \
  CULE_D(kTYA, kImp, 2),                 /* 98 TYA */ \
  CULE_D(kSTA, kAbsY, 5),                /* 99 STA abs,Y */ \
  CULE_D(kTXS, kImp, 2),                 /* 9A TXS */ \
  CULE_D(kSHS, kAbsY, 5),                /* 9B SHS abs,Y  (undoc) */ \
  CULE_D(kSHY, kAbsX, 5),                /* 9C SHY abs,X  (undoc) */ \
  CULE_D(kSTA, kAbsX, 5),                /* 9D STA abs,X */ \
  CULE_D(kSHX, kAbsY, 5),                /* 9E SHX abs,Y  (undoc) */ \
  CULE_D(kSHA, kAbsY, 5),                /* 9F SHA abs,Y  (undoc) */ \
  CULE_D(kLDY, kImm, 2),                 /* A0 LDY #imm */ \
  CULE_D(kLDA, kIndX, 6),                /* A1 LDA (zp,X) */ \
  CULE_D(kLDX, kImm, 2),                 /* A2 LDX #imm */ \
  CULE_D(kLAX, kIndX, 6),                /* A3 LAX (zp,X)  (undoc) */ \
  CULE_D(kLDY, kZp, 3),                  /* A4 LDY zp */ \
  CULE_D(kLDA, kZp, 3),                  /* A5 LDA zp */ \
  CULE_D(kLDX, kZp, 3),                  /* A6 LDX zp */ \
  CULE_D(kLAX, kZp, 4),                  /* A7 LAX zp  (undoc) */ \
  CULE_D(kTAY, kImp, 2),                 /* A8 TAY */ \
  CULE_D(kLDA, kImm, 2),                 /* A9 LDA #imm */ \
  CULE_D(kTAX, kImp, 2),                 /* AA TAX */ \
  CULE_D(kLXA, kImm, 2),                 /* AB LXA #imm  (undoc) */ \
  CULE_D(kLDY, kAbs, 4),                 /* AC LDY abs */ \
  CULE_D(kLDA, kAbs, 4),                 /* AD LDA abs */ \
  CULE_D(kLDX, kAbs, 4),                 /* AE LDX abs */ \
  CULE_D(kLAX, kAbs, 4),                 /* AF LAX abs  (undoc) */ \
  CULE_D(kBCS, kRel, 2),                 /* B0 BCS rel */ \
  CULE_D(kLDA, kIndY, 5),                /* B1 LDA (zp),Y */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* B2 JAM */ \
  CULE_D(kLAX, kIndY, 5),                /* B3 LAX (zp),Y  (undoc) */ \
  CULE_D(kLDY, kZpX, 4),                 /* B4 LDY zp,X */ \
  CULE_D(kLDA, kZpX, 4),                 /* B5 LDA zp,X */ \
  CULE_D(kLDX, kZpY, 4),                 /* B6 LDX zp,Y */ \
  CULE_D(kLAX, kZpY, 4),                 /* B7 LAX zp,Y  (undoc) */ \
  CULE_D(kCLV, kImp, 2),                 /* B8 CLV */ \
  CULE_D(kLDA, kAbsY, 4),                /* B9 LDA abs,Y */ \
  CULE_D(kTSX, kImp, 2),                 /* BA TSX */ \
  CULE_D(kLAS, kAbsY, 4),                /* BB LAS abs,Y  (undoc) */ \
  CULE_D(kLDY, kAbsX, 4),                /* BC LDY abs,X */ \
  CULE_D(kLDA, kAbsX, 4),                /* BD LDA abs,X */ \
  CULE_D(kLDX, kAbsY, 4),                /* BE LDX abs,Y */ \
  CULE_D(kLAX, kAbsY, 4),                /* BF LAX abs,Y  (undoc) */ \
  CULE_D(kCPY, kImm, 2),                 /* C0 CPY #imm */ \
  CULE_D(kCMP, kIndX, 6),                /* C1 CMP (zp,X) */ \
  CULE_D(kNOP, kImm, 2),                 /* C2 NOP #imm  (undoc) */ \
  CULE_D(kDCP, kIndX, 8),                /* C3 DCP (zp,X)  (undoc) */ \
  CULE_D(kCPY, kZp, 3),                  /* C4 CPY zp */ \
  CULE_D(kCMP, kZp, 3),                  /* C5 CMP zp */ \
  CULE_D(kDEC, kZp, 5),                  /* C6 DEC zp */ \
  CULE_D(kDCP, kZp, 5),                  /* C7 DCP zp  (undoc) */ \
  CULE_D(kINY, kImp, 2),                 /* C8 INY */ \
  CULE_D(kCMP, kImm, 2),                 /* C9 CMP #imm */ \
  CULE_D(kDEX, kImp, 2),                 /* CA DEX */ \
  CULE_D(kSBX, kImm, 2),                 /* CB SBX #imm  (undoc) */ \
  CULE_D(kCPY, kAbs, 4),                 /* CC CPY abs */ \
  CULE_D(kCMP, kAbs, 4),                 /* CD CMP abs */ \
  CULE_D(kDEC, kAbs, 6),                 /* CE DEC abs */ \
  CULE_D(kDCP, kAbs, 6),                 /* CF DCP abs  (undoc) */ \
  CULE_D(kBNE, kRel, 2),                 /* D0 BNE rel */ \
  CULE_D(kCMP, kIndY, 5),                /* D1 CMP (zp),Y */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* D2 JAM */ \
  CULE_D(kDCP, kIndY, 8),                /* D3 DCP (zp),Y  (undoc) */ \
  CULE_D(kNOP, kZpX, 4),                 /* D4 NOP zp,X  (undoc) */ \
  CULE_D(kCMP, kZpX, 4),                 /* D5 CMP zp,X */ \
  CULE_D(kDEC, kZpX, 6),                 /* D6 DEC zp,X */ \
  CULE_D(kDCP, kZpX, 6),                 /* D7 DCP zp,X  (undoc) */ \
  CULE_D(kCLD, kImp, 2),                 /* D8 CLD */ \
  CULE_D(kCMP, kAbsY, 4),                /* D9 CMP abs,Y */ \
  CULE_D(kNOP, kImp, 2),                 /* DA NOP  (undoc) */ \
  CULE_D(kDCP, kAbsY, 7),                /* DB DCP abs,Y  (undoc) */ \
  CULE_D(kNOP, kAbsX, 4),                /* DC NOP abs,X  (undoc) */ \
  CULE_D(kCMP, kAbsX, 4),                /* DD CMP abs,X */ \
  CULE_D(kDEC, kAbsX, 7),                /* DE DEC abs,X */ \
  CULE_D(kDCP, kAbsX, 7),                /* DF DCP abs,X  (undoc) */ \
  CULE_D(kCPX, kImm, 2),                 /* E0 CPX #imm */ \
  CULE_D(kSBC, kIndX, 6),                /* E1 SBC (zp,X) */ \
  CULE_D(kNOP, kImm, 2),                 /* E2 NOP #imm  (undoc) */ \
  CULE_D(kISB, kIndX, 8),                /* E3 ISB (zp,X)  (undoc) */ \
  CULE_D(kCPX, kZp, 3),                  /* E4 CPX zp */ \
  CULE_D(kSBC, kZp, 3),                  /* E5 SBC zp */ \
  CULE_D(kINC, kZp, 5),                  /* E6 INC zp */ \
  CULE_D(kISB, kZp, 5),                  /* E7 ISB zp  (undoc) */ \
  CULE_D(kINX, kImp, 2),                 /* E8 INX */ \
  CULE_D(kSBC, kImm, 2),                 /* E9 SBC #imm */ \
  CULE_D(kNOP, kImp, 2),                 /* EA NOP */ \
  CULE_D(kSBC, kImm, 2),                 /* EB SBC #imm */ \
  CULE_D(kCPX, kAbs, 4),                 /* EC CPX abs */ \
  CULE_D(kSBC, kAbs, 4),                 /* ED SBC abs */ \
  CULE_D(kINC, kAbs, 6),                 /* EE INC abs */ \
  CULE_D(kISB, kAbs, 6),                 /* EF ISB abs  (undoc) */ \
  CULE_D(kBEQ, kRel, 2),                 /* F0 BEQ rel */ \
  CULE_D(kSBC, kIndY, 5),                /* F1 SBC (zp),Y */ \
  CULE_D(kSpecialOp, kSpecial, 2),       /* F2 JAM */ \
  CULE_D(kISB, kIndY, 8),                /* F3 ISB (zp),Y  (undoc) */ \
  CULE_D(kNOP, kZpX, 4),                 /* F4 NOP zp,X  (undoc) */ \
  CULE_D(kSBC, kZpX, 4),                 /* F5 SBC zp,X */ \
  CULE_D(kINC, kZpX, 6),                 /* F6 INC zp,X */ \
  CULE_D(kISB, kZpX, 6),                 /* F7 ISB zp,X  (undoc) */ \
  CULE_D(kSED, kImp, 2),                 /* F8 SED */ \
  CULE_D(kSBC, kAbsY, 4),                /* F9 SBC abs,Y */ \
  CULE_D(kNOP, kImp, 2),                 /* FA NOP  (undoc) */ \
  CULE_D(kISB, kAbsY, 7),                /* FB ISB abs,Y  (undoc) */ \
  CULE_D(kNOP, kAbsX, 4),                /* FC NOP abs,X  (undoc) */ \
  CULE_D(kSBC, kAbsX, 4),                /* FD SBC abs,X */ \
  CULE_D(kINC, kAbsX, 7),                /* FE INC abs,X */ \
  CULE_D(kISB, kAbsX, 7),                /* FF ISB abs,X  (undoc) */ \

#if defined(__CUDACC__)
// In global memory, read through the L1 (lanes of a warp index it at different opcodes,
// which the constant cache would serialise).
__device__ const uint32_t kDecodeDevice[256] = {CULE_6507_DECODE_ENTRIES};
#endif
static const uint32_t kDecodeHost[256] = {CULE_6507_DECODE_ENTRIES};
// Opcode n's entry as a constant expression, for the code Core::step instantiates per
// opcode (host and device).
constexpr CULE_HOST_DEVICE uint32_t decode_const(uint32_t n) {
  constexpr uint32_t t[256] = {CULE_6507_DECODE_ENTRIES};
  return t[n];
}

#undef CULE_6507_DECODE_ENTRIES
#undef CULE_D

CULE_FI uint32_t decode_entry(uint8_t opcode) {
#if defined(__CUDA_ARCH__)
  return __ldg(&kDecodeDevice[opcode]);
#else
  return kDecodeHost[opcode];
#endif
}

// An entry's addressing mode and data access (the layout at CULE_D).
CULE_FI uint32_t entry_mode(uint32_t d) { return (d >> 8) & 15u; }
CULE_FI uint32_t entry_access(uint32_t d) { return (d >> 17) & 3u; }

}  // namespace cpu6507
}  // namespace cule
