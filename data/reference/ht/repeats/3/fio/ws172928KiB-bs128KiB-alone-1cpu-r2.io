rchar: 47057841169
wchar: 13663
syscr: 359242
syscw: 5
read_bytes: 0
write_bytes: 24576
cancelled_write_bytes: 0
