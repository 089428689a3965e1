rchar: 41535253614
wchar: 13664
syscr: 317128
syscw: 5
read_bytes: 831488
write_bytes: 32768
cancelled_write_bytes: 0
