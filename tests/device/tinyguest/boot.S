/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Entry of the tiny guest: a Multiboot (v1) kernel that QEMU's -kernel
 * loads and enters in 32-bit protected mode, paging off.  Sets up a flat
 * GDT, an IDT (vector 0x40: the NVMe MSI-X interrupt; 0xff: the local
 * APIC's spurious vector; anything else is reported and stops the guest)
 * and a stack, then calls tg_main(multiboot info).
 */
#define MB_MAGIC 0x1badb002
#define MB_FLAGS 0x00000003         /* align modules, memory info */

    .section .multiboot, "a"
    .align 4
    .long MB_MAGIC
    .long MB_FLAGS
    .long -(MB_MAGIC + MB_FLAGS)

    .text
    .globl _start
_start:
    cli
    lgdt gdt_desc
    ljmp $0x08, $1f
1:  movw $0x10, %ax
    movw %ax, %ds
    movw %ax, %es
    movw %ax, %fs
    movw %ax, %gs
    movw %ax, %ss
    movl $stack_top, %esp

    /* IDT: every vector to tg_bad_vector, then 0x40 and 0xff */
    movl $idt, %edi
    movl $256, %ecx
2:  movl $isr_bad, %eax
    call set_gate
    addl $8, %edi
    loop 2b
    movl $idt + 8 * 0x40, %edi
    movl $isr_nvme, %eax
    call set_gate
    movl $idt + 8 * 0xff, %edi
    movl $isr_spurious, %eax
    call set_gate
    lidt idt_desc

    pushl %ebx
    call tg_main
3:  cli
    hlt
    jmp 3b

/* %edi: gate, %eax: handler; a 32-bit interrupt gate in segment 0x08 */
set_gate:
    movw %ax, (%edi)
    movw $0x08, 2(%edi)
    movw $0x8e00, 4(%edi)
    shrl $16, %eax
    movw %ax, 6(%edi)
    ret

    .globl isr_nvme
isr_nvme:
    pushl %eax
    incl tg_irqs
    movl $0, 0xfee000b0             /* local APIC EOI */
    popl %eax
    iret

isr_spurious:
    iret

isr_bad:
    call tg_bad_vector
4:  cli
    hlt
    jmp 4b

    .data
    .align 8
gdt:
    .quad 0
    .quad 0x00cf9a000000ffff        /* 0x08: code, flat 4 GiB */
    .quad 0x00cf92000000ffff        /* 0x10: data, flat 4 GiB */
gdt_desc:
    .word gdt_desc - gdt - 1
    .long gdt
idt_desc:
    .word 256 * 8 - 1
    .long idt

    .bss
    .align 16
idt:
    .skip 256 * 8
    .align 16
    .skip 16384
stack_top:
    .section .note.GNU-stack, "", @progbits
