rchar: 89858223119
wchar: 18969
syscr: 685783
syscw: 5
read_bytes: 0
write_bytes: 16384
cancelled_write_bytes: 0
