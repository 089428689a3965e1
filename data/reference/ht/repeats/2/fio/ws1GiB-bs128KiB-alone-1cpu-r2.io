rchar: 38989310969
wchar: 13657
syscr: 297684
syscw: 5
read_bytes: 434176
write_bytes: 8192
cancelled_write_bytes: 0
