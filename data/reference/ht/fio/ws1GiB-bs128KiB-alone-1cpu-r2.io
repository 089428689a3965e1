rchar: 50449853425
wchar: 13663
syscr: 385122
syscw: 5
read_bytes: 585728
write_bytes: 12288
cancelled_write_bytes: 0
