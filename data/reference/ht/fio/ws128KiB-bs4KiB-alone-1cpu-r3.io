rchar: 21050620875
wchar: 13664
syscr: 5139504
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
