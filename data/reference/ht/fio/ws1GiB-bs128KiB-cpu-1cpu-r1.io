rchar: 21394336747
wchar: 13658
syscr: 163446
syscw: 5
read_bytes: 212992
write_bytes: 32768
cancelled_write_bytes: 0
