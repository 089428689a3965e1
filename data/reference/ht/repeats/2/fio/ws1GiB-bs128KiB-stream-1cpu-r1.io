rchar: 35386928117
wchar: 13663
syscr: 270201
syscw: 5
read_bytes: 24576
write_bytes: 45056
cancelled_write_bytes: 0
