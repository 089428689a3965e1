rchar: 44222360548
wchar: 13662
syscr: 337608
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
