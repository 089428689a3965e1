rchar: 70130969816
wchar: 18973
syscr: 535311
syscw: 5
read_bytes: 0
write_bytes: 32768
cancelled_write_bytes: 0
